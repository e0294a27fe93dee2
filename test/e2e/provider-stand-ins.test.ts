import { connectorSteps } from '../support/connector-sign-in';
import { createAgent, createDataSource } from '../support/fixtures';
import { api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import {
  PROVIDERS,
  type ProviderStandIns,
  startProviderStandIns,
} from '../support/provider-stand-ins';
import { syncNow } from '../support/sync';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';

/**
 * `npm run stand-ins` (issue 12's black-box check): the four stand-ins as a
 * person runs them beside the service, with only what the script prints —
 * the settings, the data source configs and the control address — and the
 * API: connect by following the sign-in redirects, sync, ask, then act as
 * the provider's user (delete an item, revoke access) through the control
 * address and see the service follow.
 */
describe('Provider stand-ins (npm run stand-ins)', () => {
  // One clock for the service and the stand-ins; advanced so the key's Write bucket (D16) never runs dry.
  const clock = new TestClock();
  let standIns: ProviderStandIns;
  let service: TestService;

  beforeAll(async () => {
    standIns = await startProviderStandIns({ clock });
    service = await startTestService({ clock, env: { ...standIns.env } });
  });
  afterAll(async () => {
    await service.end();
    await standIns.close();
  });

  const call = (path: string, options: Parameters<typeof api>[2] = {}) =>
    api(service.url, path, { key: service.adminKey, ...options });
  const control = (path: string, method: string) =>
    fetch(`${standIns.controlUrl}${path}`, { method });

  /**
   * The browser's way (P215, P216): a signed-in person's `oauth/start`, its
   * redirect to the stand-in, the consent's redirect to the callback with the
   * flow cookie the start set.
   */
  const steps = connectorSteps(() => service, []);
  const connect = async (sourceId: string): Promise<string> => (await steps.connect(sourceId)).text;

  it('lists its settings, configs and items at the control address', async () => {
    const overview = (await (await control('/', 'GET')).json()) as Record<string, any>;

    expect(Object.keys(overview.configs).sort()).toEqual([...PROVIDERS].sort());
    for (const provider of PROVIDERS) expect(overview.items[provider].length).toBeGreaterThan(0);
    expect((await control('/slack/items/nothing-here', 'DELETE')).status).toBe(404);
    expect((await control('/jira/revoke', 'POST')).status).toBe(404);
  });

  it('connects, syncs and answers from every provider, then follows a deletion and a revocation', async () => {
    const sources: Record<string, string> = {};
    for (const provider of PROVIDERS) {
      clock.advance(REFILL_ALL_BUCKETS_MS);
      const source = await createDataSource(service, service.adminKey, {
        type: provider,
        name: `Stand-in ${provider}`,
        config: standIns.configs[provider],
        sync_frequency: 'manual',
      });
      expect(await connect(source.id)).toContain('Connected');
      expect(await syncNow(service, service.adminKey, source.id)).toMatchObject({
        status: 'active',
        job_status: 'succeeded',
      });
      sources[provider] = source.id;
    }
    clock.advance(REFILL_ALL_BUCKETS_MS);
    const agent = await createAgent(service, service.adminKey, {
      name: 'Everything',
      data_source_ids: Object.values(sources),
    });
    const ask = async (query: string) =>
      json(await call('/api/v1/query', { method: 'POST', body: { agent_id: agent.id, query } }));

    const rollback = await ask('How do I roll back a deploy?');
    const wifi = await ask('When does the guest wifi password rotate?');

    expect(rollback.sources[0]).toMatchObject({
      document_title: 'Deploy runbook',
      document_url: expect.stringMatching(/^https:\/\/acme\.atlassian\.net\/wiki\//),
    });
    expect(wifi.sources[0].document_url).toMatch(/^https:\/\/acme\.sharepoint\.com\//);

    // The provider's user deletes the runbook: the next sync takes it out of the index.
    const [runbook] = standIns.items().confluence;
    expect((await control(`/confluence/items/${runbook?.id}`, 'DELETE')).status).toBe(200);
    await syncNow(service, service.adminKey, sources.confluence ?? '');
    const afterDelete = await ask('How do I roll back a deploy?');
    expect(JSON.stringify(afterDelete.sources)).not.toContain('undo-release');

    // The user takes Slack's access away: the next sync ends Connection failed.
    expect((await control('/slack/revoke', 'POST')).status).toBe(200);
    const failed = await syncNow(service, service.adminKey, sources.slack ?? '');
    const slackSource = json(await call(`/api/v1/data-sources/${sources.slack}`));
    expect(failed.status).toBe('failed');
    expect(slackSource.connection_status).toBe('Connection failed');
  });
});
