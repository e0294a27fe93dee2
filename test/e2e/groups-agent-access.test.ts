import { expectFlatError, expectNestedError } from '../support/error-shapes';
import { api, json } from '../support/http-client';
import { unknownId } from '../support/ids';
import { startTestService, type TestService } from '../support/local-service';
import {
  helpCenterPages,
  htmlPage,
  type LoopbackSite,
  startLoopbackSite,
} from '../support/loopback-site';
import { indexWebsite } from '../support/sync';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';
import { createTestUser, signedIn, type TestUser, type WebSession } from '../support/web-session';

/**
 * The agents a group lets its members use (P80, P81), over HTTP: a user
 * whose every group restricts sees and uses only the union of their groups'
 * agents — on the agents routes, query and chat, semantic search,
 * interactions, feedback and analytics — and any other agent answers as one
 * that does not exist. Changes apply at the next request (P83).
 */
describe('Agent access through groups', () => {
  const clock = new TestClock();
  let service: TestService;
  const sites: LoopbackSite[] = [];
  let help: { id: string; chunks: number };
  let billing: { id: string; chunks: number };
  let helpAgent: string;
  let billingAgent: string;
  let admin: WebSession;
  let member: TestUser;
  let browser: WebSession;
  let helpOnly: string;

  beforeAll(async () => {
    service = await startTestService({ env: { SVC_ALLOW_PRIVATE_URLS: 'true' }, clock });
    sites.push(
      await startLoopbackSite(helpCenterPages),
      await startLoopbackSite(() => ({
        '/': htmlPage('Billing FAQ', [
          'Invoices are emailed on the first day of each month.',
          'A refund appears on your next invoice within ten days.',
        ]),
      })),
    );
    const indexed = await Promise.all(
      sites.map((site, index) =>
        indexWebsite(service, service.adminKey, site.url('/'), `Site ${index}`),
      ),
    );
    [help, billing] = indexed.map(({ source, status }) => ({
      id: source.id as string,
      chunks: status.chunks_indexed as number,
    })) as [typeof help, typeof billing];
    const agent = async (name: string, dataSourceId: string) =>
      json(
        await api(service.url, '/api/v1/agents', {
          method: 'POST',
          key: service.adminKey,
          body: { name, data_source_ids: [dataSourceId] },
        }),
      ).id as string;
    helpAgent = await agent('Help', help.id);
    billingAgent = await agent('Billing', billing.id);
    admin = await signedIn(service, await createTestUser(service, { role: 'admin' }));
    helpOnly = await groupOf({ name: 'Help desk', agent_ids: [helpAgent] });
    member = await createTestUser(service, { role: 'configure' });
    await join(helpOnly, member.id);
    browser = await signedIn(service, member);
  });
  afterAll(async () => {
    await service.end();
    await Promise.all(sites.map((site) => site.close()));
  });
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  async function groupOf(body: Record<string, unknown>): Promise<string> {
    const response = await admin.request('/api/v1/groups', { method: 'POST', body });
    expect(response.status).toBe(201);
    return json(response).id;
  }
  const join = (groupId: string, userId: string) =>
    admin.request(`/api/v1/groups/${groupId}/members/${userId}`, { method: 'PUT' });
  const leave = (groupId: string, userId: string) =>
    admin.request(`/api/v1/groups/${groupId}/members/${userId}`, { method: 'DELETE' });
  const visibleAgents = async (as: WebSession = browser) =>
    json(await as.request('/api/v1/agents?limit=200')).agents.map(
      (agent: { id: string }) => agent.id,
    );
  const ask = (agentId: string, as: WebSession = browser, path = '/api/v1/query') =>
    as.request(path, {
      method: 'POST',
      body: { agent_id: agentId, query: 'How do refunds work?' },
    });

  it('lists and counts only the agents of the groups, and answers any other agent as unknown', async () => {
    const list = json(await browser.request('/api/v1/agents'));
    const other = await browser.request(`/api/v1/agents/${billingAgent}`);
    const unknown = await browser.request(`/api/v1/agents/${unknownId('agt')}`);
    const change = await browser.request(`/api/v1/agents/${billingAgent}`, {
      method: 'PUT',
      body: { name: 'Mine' },
    });
    const remove = await browser.request(`/api/v1/agents/${billingAgent}`, { method: 'DELETE' });
    const legacy = await browser.request(`/api/ai-agent-managers/${billingAgent}`);
    const own = await browser.request(`/api/v1/agents/${helpAgent}`);
    const ownChange = await browser.request(`/api/v1/agents/${helpAgent}`, {
      method: 'PUT',
      body: { temperature: 0.3 },
    });

    expect(list.agents.map((agent: { id: string }) => agent.id)).toEqual([helpAgent]);
    expect(list.total).toBe(1);
    // P244: a name filter searches only what the groups allow.
    expect(json(await browser.request('/api/v1/agents?q=BILL'))).toMatchObject({
      agents: [],
      total: 0,
    });
    expect(json(await browser.request('/api/v1/agents?q=hel')).total).toBe(1);
    const refused = expectNestedError(other, 404, 'not_found');
    const missing = expectNestedError(unknown, 404, 'not_found');
    expect(refused.message.replace(billingAgent, 'ID')).toBe(
      missing.message.replace(/agt_\w+/, 'ID'),
    );
    expectNestedError(change, 404, 'not_found');
    expectNestedError(remove, 404, 'not_found');
    expect(expectFlatError(legacy, 404)).toMatchObject({ code: 'not_found' });
    expect(own.status).toBe(200);
    expect(ownChange.status).toBe(200);
    const stillThere = await api(service.url, `/api/v1/agents/${billingAgent}`, {
      key: service.adminKey,
    });
    expect(json(stillThere).name).toBe('Billing');
  });

  it('refuses a restricted user creating agents (403, agents_restricted), whatever their role', async () => {
    const response = await browser.request('/api/v1/agents', {
      method: 'POST',
      body: { name: 'Invisible', data_source_ids: [] },
    });

    expect(expectNestedError(response, 403, 'forbidden').details).toEqual({
      reason: 'agents_restricted',
    });
  });

  it('lets them ask their agents only, on /api/v1/query and /api/chat', async () => {
    const allowed = await ask(helpAgent);
    const refused = await ask(billingAgent);
    const legacy = await ask(billingAgent, browser, '/api/chat');
    const streamed = await browser.request('/api/v1/query', {
      method: 'POST',
      body: { agent_id: billingAgent, query: 'Refunds?', stream: true },
    });

    expect(allowed.status).toBe(200);
    expect(json(allowed).sources.length).toBeGreaterThan(0);
    expectNestedError(refused, 404, 'not_found');
    expect(expectFlatError(legacy, 404)).toMatchObject({ code: 'not_found' });
    expectNestedError(streamed, 404, 'not_found');
  });

  it("searches only their agents' data sources; others named are searched as unknown ids", async () => {
    const search = (body: Record<string, unknown>) =>
      browser.request('/api/v1/semantic-search', {
        method: 'POST',
        body: { org_id: service.orgId, query: 'refund invoice', ...body },
      });

    const all = json(await search({}));
    const named = json(await search({ data_source_ids: [billing.id] }));
    const mixed = json(await search({ data_source_ids: [billing.id, help.id] }));
    const byKey = json(
      await api(service.url, '/api/v1/semantic-search', {
        method: 'POST',
        key: service.adminKey,
        body: { org_id: service.orgId, query: 'refund invoice' },
      }),
    );

    expect(all.metadata.total_chunks_searched).toBe(help.chunks);
    expect(all.chunks.length).toBeGreaterThan(0);
    for (const chunk of all.chunks) expect(chunk.data_source_id).toBe(help.id);
    expect(named).toMatchObject({ chunks: [], metadata: { total_chunks_searched: 0 } });
    expect(mixed.metadata.total_chunks_searched).toBe(help.chunks);
    expect(byKey.metadata.total_chunks_searched).toBe(help.chunks + billing.chunks);
  });

  it('lists interactions, gives feedback and sums analytics for their agents only', async () => {
    const theirs = json(await ask(helpAgent)).metadata.interaction_id;
    const others = json(
      await api(service.url, '/api/v1/query', {
        method: 'POST',
        key: service.adminKey,
        body: { agent_id: billingAgent, query: 'When are invoices sent?' },
      }),
    ).metadata.interaction_id;

    const list = json(await browser.request('/api/v1/interactions?limit=200'));
    const filtered = json(await browser.request(`/api/v1/interactions?agent_id=${billingAgent}`));
    const feedback = await browser.request(`/api/v1/interactions/${others}/feedback`, {
      method: 'POST',
      body: { feedback: 'negative' },
    });
    const legacyFeedback = await browser.request('/api/interactions/feedback', {
      method: 'POST',
      body: { interactionId: others, feedback: 'negative' },
    });
    const ownFeedback = await browser.request(`/api/v1/interactions/${theirs}/feedback`, {
      method: 'POST',
      body: { feedback: 'positive' },
    });
    const day = (offsetDays: number) =>
      new Date(clock.now().getTime() + offsetDays * 86_400_000).toISOString().slice(0, 10);
    const range = `start_date=${day(-3)}&end_date=${day(0)}`;
    const analytics = json(await browser.request(`/api/v1/analytics?${range}`));
    const otherAnalytics = json(
      await browser.request(`/api/v1/analytics?${range}&agent_id=${billingAgent}`),
    );
    const everything = json(
      await api(service.url, `/api/v1/analytics?${range}`, { key: service.adminKey }),
    );

    const agentIds = new Set(list.interactions.map((item: { agent_id: string }) => item.agent_id));
    expect([...agentIds]).toEqual([helpAgent]);
    expect(list.interactions.map((item: { id: string }) => item.id)).toContain(theirs);
    expect(list.total).toBe(list.interactions.length);
    expect(filtered).toMatchObject({ interactions: [], total: 0 });
    expectNestedError(feedback, 404, 'not_found');
    expect(expectFlatError(legacyFeedback, 404)).toMatchObject({ code: 'not_found' });
    expect(ownFeedback.status).toBe(200);
    expect(analytics.metrics.total_queries).toBe(list.total);
    expect(otherAnalytics.metrics.total_queries).toBe(0);
    expect(everything.metrics.total_queries).toBeGreaterThan(analytics.metrics.total_queries);
  });

  it('gives the union of restricting groups, and everything once one group does not restrict', async () => {
    const billingOnly = await groupOf({ name: 'Billing desk', agent_ids: [billingAgent] });
    const everyone = await groupOf({ name: 'Everyone' });

    await join(billingOnly, member.id);
    const union = await visibleAgents();
    const askBilling = await ask(billingAgent);
    await join(everyone, member.id);
    const unrestricted = await visibleAgents();
    const me = json(await browser.request('/api/v1/auth/me'));
    await leave(everyone, member.id);
    await leave(billingOnly, member.id);
    const back = await visibleAgents();

    expect(union.sort()).toEqual([helpAgent, billingAgent].sort());
    expect(askBilling.status).toBe(200);
    expect(unrestricted.length).toBeGreaterThanOrEqual(2);
    expect(me.access.agent_ids).toBeNull();
    expect(back).toEqual([helpAgent]);
  });

  it("applies a change of the group's agents at the next request", async () => {
    await admin.request(`/api/v1/groups/${helpOnly}`, {
      method: 'PUT',
      body: { agent_ids: [billingAgent] },
    });
    const moved = await visibleAgents();
    const me = json(await browser.request('/api/v1/auth/me'));
    await admin.request(`/api/v1/groups/${helpOnly}`, {
      method: 'PUT',
      body: { agent_ids: [helpAgent] },
    });
    const restored = await visibleAgents();

    expect(moved).toEqual([billingAgent]);
    expect(me.access).toEqual({
      role: 'configure',
      group_ids: [helpOnly],
      agent_ids: [billingAgent],
    });
    expect(restored).toEqual([helpAgent]);
  });

  it('restricts to nothing when every group lists no agent, and lifts it when the last group goes', async () => {
    const user = await createTestUser(service, { role: 'readonly' });
    const theirs = await signedIn(service, user);
    const none = await groupOf({ name: 'No agents', agent_ids: [] });

    await join(none, user.id);
    const nothing = json(await theirs.request('/api/v1/agents'));
    const asked = await ask(helpAgent, theirs);
    await admin.request(`/api/v1/groups/${none}`, { method: 'DELETE' });
    const everything = await visibleAgents(theirs);

    expect(nothing).toMatchObject({ agents: [], total: 0 });
    expectNestedError(asked, 404, 'not_found');
    expect(everything).toEqual(expect.arrayContaining([helpAgent, billingAgent]));
  });

  it('never restricts an effective admin, nor API keys (P80)', async () => {
    const user = await createTestUser(service, { role: 'admin' });
    const theirs = await signedIn(service, user);
    await join(helpOnly, user.id);

    const asAdmin = await visibleAgents(theirs);
    const byKey = json(
      await api(service.url, '/api/v1/agents?limit=200', { key: service.adminKey }),
    );
    await leave(helpOnly, user.id);

    expect(asAdmin).toEqual(expect.arrayContaining([helpAgent, billingAgent]));
    expect(byKey.agents.map((agent: { id: string }) => agent.id)).toEqual(
      expect.arrayContaining([helpAgent, billingAgent]),
    );
  });
});
