import { parseCidrRange } from '../../../layers/core/domain/cidr-range';
import { compileIpAllowlist } from '../../../layers/core/domain/ip-allowlist';
import {
  problemsByRow,
  rangeRow,
  rangesToSend,
  rowProblem,
} from '../../src/screens/settings/organization/allowlist-rows';
import {
  checkRange,
  rangeContains,
  rangeForAddress,
  wouldShutOut,
} from '../../src/screens/settings/organization/cidr';

/** Entries people write, good and bad (the service's own e2e list among them). */
const WRITTEN = [
  '203.0.113.0/24',
  '127.0.0.1/32',
  '0.0.0.0/0',
  '2001:DB8:0:0::/32',
  '::1/128',
  '::/0',
  '10.1.2.3/8',
  '127.1/8',
  '203.0.113.7',
  '2001:db8::1',
  '::ffff:127.0.0.1/128',
  'fe80::1%eth0/64',
  '1.2.3.4/33',
  '2001:db8::/129',
  '010.0.0.0/8',
  'not an address',
  '1.2.3.4/08',
  '',
  '192.168.1.0/24 ',
];

const ADDRESSES = [
  '127.0.0.1',
  '127.0.0.2',
  '10.9.8.7',
  '203.0.113.7',
  '::1',
  '2001:db8::42',
  '::ffff:127.0.0.1',
  'fe80::1',
];

describe('the IP allowlist as the console checks it (P278)', () => {
  it('accepts and refuses exactly what the service does, in the same words', () => {
    for (const text of WRITTEN) {
      const service = parseCidrRange(text);
      const console = checkRange(text);
      expect({ text, ...console }).toEqual({
        text,
        ...(service.ok
          ? { ok: true, range: service.range }
          : { ok: false, problem: service.problem }),
      });
    }
  });

  it('writes ranges in the canonical form the service stores', () => {
    expect(checkRange('2001:DB8:0:0::/32')).toEqual({ ok: true, range: '2001:db8::/32' });
    expect(checkRange('10.1.2.3/8')).toEqual({
      ok: false,
      problem: '10.1.2.3/8 has host bits set: the range it is part of is 10.0.0.0/8',
    });
    expect(checkRange('203.0.113.7')).toMatchObject({
      ok: false,
      problem: expect.stringContaining('203.0.113.7/32'),
    });
  });

  it('finds an address in a range as net.BlockList does, IPv4-mapped forms included', () => {
    const ranges = WRITTEN.flatMap((text) => {
      const parsed = parseCidrRange(text);
      return parsed.ok ? [parsed.range] : [];
    });
    for (const range of ranges) {
      const service = compileIpAllowlist([range]);
      for (const address of ADDRESSES) {
        expect({ range, address, inside: rangeContains(range, address) }).toEqual({
          range,
          address,
          inside: service?.allows(address) ?? true,
        });
      }
    }
  });

  it('says whether a list would shut the caller out: only valid ranges count, none shuts out nobody', () => {
    expect(wouldShutOut([], '127.0.0.1')).toBe(false);
    expect(wouldShutOut(['', '  '], '127.0.0.1')).toBe(false);
    expect(wouldShutOut(['127.0.0.1', '10.0.0.0/'], '127.0.0.1')).toBe(false);
    expect(wouldShutOut(['10.0.0.0/8'], '127.0.0.1')).toBe(true);
    expect(wouldShutOut(['10.0.0.0/8', '127.0.0.1'], '127.0.0.1')).toBe(true);
    expect(wouldShutOut(['10.0.0.0/8', '127.0.0.0/8'], '127.0.0.1')).toBe(false);
    expect(wouldShutOut([' 127.0.0.1/32 '], '127.0.0.1')).toBe(false);
    expect(wouldShutOut(['127.0.0.0/8'], '::1')).toBe(true);
    expect(wouldShutOut(['::/0'], '203.0.113.7')).toBe(false);
    expect(wouldShutOut(['203.0.113.0/24'], '::ffff:203.0.113.7')).toBe(false);
  });

  it('suggests the address alone as the range that keeps the caller in', () => {
    expect(rangeForAddress('203.0.113.7')).toBe('203.0.113.7/32');
    expect(rangeForAddress('2001:DB8::1')).toBe('2001:db8::1/128');
    expect(rangeForAddress('::ffff:203.0.113.7')).toBe('203.0.113.7/32');
    expect(rangeForAddress('')).toBeNull();
  });
});

describe("the allowlist editor's rows", () => {
  it('sends non-blank rows trimmed, and gives the service’s refusals back to the rows they came from', () => {
    const rows = [rangeRow(' 10.0.0.0/8 '), rangeRow(''), rangeRow('bad')];
    const sent = rangesToSend(rows);
    const problems = problemsByRow(
      [
        { path: 'settings.ip_allowlist.1', message: 'must be a CIDR range' },
        { path: 'settings.ip_allowlist', message: 'excludes your own address' },
        { path: 'settings.ip_allowlist.9', message: 'out of range' },
      ],
      sent,
    );

    expect(sent.map((entry) => entry.range)).toEqual(['10.0.0.0/8', 'bad']);
    expect([...problems]).toEqual([[rows[2]?.key, 'must be a CIDR range']]);
  });

  it('checks a row in the service’s words, blank rows aside', () => {
    expect(rowProblem(rangeRow('  '))).toBeNull();
    expect(rowProblem(rangeRow('127.0.0.1/32'))).toBeNull();
    expect(rowProblem(rangeRow('127.0.0.1'))).toContain('write 127.0.0.1/32');
  });
});
