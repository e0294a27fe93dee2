import fc from 'fast-check';
import {
  compareTs,
  latestTs,
  mentionedUsers,
  permalinkPart,
  plainText,
  tsDate,
} from '../../../../layers/core/adapters/connectors/slack/slack-text';

const names: Record<string, string> = { U0ADA00001: 'ada' };
const nameOf = (id: string) => names[id] ?? id;

/** P161: Slack's message markup as people read it. */
describe('Slack text (P161)', () => {
  it('turns mentions, channel links, special mentions and links into plain text', () => {
    expect(
      plainText(
        'Ask <@U0ADA00001> in <#C0ENG00001|engineering>, <!here>: see <https://wiki.test/keys|the runbook> or <https://x.test> &amp; &lt;b&gt;',
        nameOf,
      ),
    ).toBe(
      'Ask @ada in #engineering, @here: see the runbook (https://wiki.test/keys) or https://x.test & <b>',
    );
    expect(
      plainText('<@U0NOBODY1> <!subteam^S123|@oncall> <mailto:a@b.test|a@b.test>', nameOf),
    ).toBe('@U0NOBODY1 @oncall a@b.test');
    expect(mentionedUsers('hi <@U0ADA00001> and <@U0GRACE001|grace>')).toEqual([
      'U0ADA00001',
      'U0GRACE001',
    ]);
  });

  it('never throws on any text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        expect(typeof plainText(text, nameOf)).toBe('string');
      }),
    );
  });

  it('orders timestamps exactly, seconds first, then the counter', () => {
    expect(compareTs('1512085950.000216', '1512085950.000215')).toBe(1);
    expect(compareTs('999999999.999999', '1000000000.000001')).toBe(-1);
    expect(compareTs('1512085950.000216', '1512085950.000216')).toBe(0);
    expect(latestTs('1512085950.000001', undefined, '1512085951.000000')).toBe('1512085951.000000');
    fc.assert(
      fc.property(
        fc.integer({ min: 1_000_000_000, max: 9_999_999_999 }),
        fc.integer({ min: 0, max: 999_999 }),
        fc.integer({ min: 1_000_000_000, max: 9_999_999_999 }),
        fc.integer({ min: 0, max: 999_999 }),
        (s1, f1, s2, f2) => {
          const ts = (s: number, f: number) => `${s}.${String(f).padStart(6, '0')}`;
          const expected = Math.sign(s1 - s2 || f1 - f2);
          expect(compareTs(ts(s1, f1), ts(s2, f2))).toBe(expected);
        },
      ),
    );
  });

  it('forms the message part of a permalink and a readable date', () => {
    expect(permalinkPart('1358546515.000008')).toBe('p1358546515000008');
    expect(tsDate('1700000000.000100')).toBe('2023-11-14 22:13 UTC');
  });
});
