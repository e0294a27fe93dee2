import fc from 'fast-check';
import { connectorSuite } from '../support/connectors/connector-suite';
import { SLACK_CHANNELS, slackConnector } from '../support/connectors/slack-connector';
import { json } from '../support/http-client';
import { REFILL_ALL_BUCKETS_MS } from '../support/test-clock';

const DAY_MS = 86_400_000;
const { engineering: ENG, security: SECURITY } = SLACK_CHANNELS;

/**
 * What Slack does beyond the shared connector scenarios
 * (`connectors-scenarios.test.ts`): channel ids checked at the edge, deleted
 * first messages (tombstones), private channels the app leaves, and
 * workspaces with token rotation off.
 */
describe('Slack connector (issue 12)', () => {
  const slack = slackConnector();
  const { clock, call, connect, createSource, ask, sync } = connectorSuite(slack);

  it('validates channel ids at create and update (D4, P159)', async () => {
    for (const channelIds of [['general'], ['#eng'], ['c0123'], ['D0123'], []]) {
      const response = await call('/api/v1/data-sources', {
        method: 'POST',
        body: { type: 'slack', name: 'Bad', config: { channel_ids: channelIds } },
      });
      expect(response.status).toBe(400);
    }
    const source = await createSource(slack.channels([ENG]));
    const update = await call(`/api/v1/data-sources/${source.id}`, {
      method: 'PUT',
      body: { config: { channel_ids: ['not a channel'] } },
    });
    expect(update.status).toBe(400);
    expect(json(update).error.details.fields).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: 'config.channel_ids.0' })]),
    );
  });

  it('fuzzes the Slack config at create: 201 exactly for channel ids, else 400, never a 5xx (D4, P159)', async () => {
    const channelId = fc.stringMatching(/^[CG][A-Z0-9]{1,12}$/);
    const anything = fc.oneof(
      channelId,
      fc.string({ maxLength: 40 }),
      fc.constantFrom('', 'general', '#eng', 'c0123', 'D0123', 'C0123 ', '<C0123>'),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.array(anything, { maxLength: 5 }),
          fc.anything({ maxDepth: 2 }),
          fc.dictionary(fc.string({ maxLength: 10 }), fc.anything({ maxDepth: 1 }), { maxKeys: 3 }),
        ),
        async (channelIds) => {
          clock.advance(REFILL_ALL_BUCKETS_MS);
          const response = await call('/api/v1/data-sources', {
            method: 'POST',
            body: { type: 'slack', name: 'Fuzzed', config: { channel_ids: channelIds } },
          });
          const valid =
            Array.isArray(channelIds) &&
            channelIds.length > 0 &&
            channelIds.every((id) => typeof id === 'string' && /^[CG][A-Z0-9]+$/.test(id));
          expect(response.status).toBe(valid ? 201 : 400);
        },
      ),
      { numRuns: 40 },
    );
  });

  describe('syncs', () => {
    let sourceId: string;

    beforeAll(async () => {
      sourceId = (await createSource()).id;
      await connect(sourceId);
      await sync(sourceId);
    });

    it('drops the text of a deleted first message, keeping its replies (tombstone)', async () => {
      const emulator = slack.emulator();
      const thread = emulator.post(ENG, {
        user: 'U0ADA00001',
        text: 'Parking passes expire in June.',
      });
      emulator.reply(ENG, thread, { user: 'U0GRACE001', text: 'Renewals go through facilities.' });
      await sync(sourceId);
      emulator.deleteMessage(ENG, thread);

      await sync(sourceId);

      const answer = await ask(sourceId, 'How are parking passes renewed through facilities?');
      expect(JSON.stringify(answer)).toContain('facilities');
      expect(JSON.stringify(answer)).not.toContain('expire in June');
    });

    it('removes the threads of a private channel the app was removed from', async () => {
      expect(JSON.stringify(await ask(sourceId, 'When is the incident drill?'))).toContain(
        'Ballard',
      );
      slack.emulator().removeBot(SECURITY);

      const status = await sync(sourceId);

      expect(status).toMatchObject({ status: 'active', job_status: 'succeeded' });
      expect(status.error).toMatch(/security|G0SEC00001/);
      const answer = await ask(sourceId, 'When is the incident drill?');
      expect(JSON.stringify(answer)).not.toContain('Ballard');
    });
  });

  it('works with token rotation off: a token that never expires, nothing to renew (P159)', async () => {
    const emulator = slack.emulator();
    emulator.rotation = false;
    try {
      const source = await createSource(slack.channels([ENG]));
      await connect(source.id);
      clock.advance(30 * DAY_MS);
      const before = slack.requestCount();

      const status = await sync(source.id);

      expect(status).toMatchObject({ status: 'active', job_status: 'succeeded' });
      expect(slack.calls(before, 'oauth.v2.access')).toHaveLength(0);
      const response = await call(`/api/v1/data-sources/${source.id}/connection`, {
        method: 'DELETE',
      });
      expect(json(response)).toMatchObject({ revoked_at_provider: true });
      expect(slack.calls(before, 'auth.revoke')[0]?.authorization).toMatch(/^Bearer xoxb-/);
    } finally {
      emulator.rotation = true;
    }
  });
});
