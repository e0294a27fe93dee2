import { NO_SOURCES_ANSWER } from '../../layers/core/domain/no-answer';
import { expectNestedError, fieldPaths } from '../support/error-shapes';
import { createAgent } from '../support/fixtures';
import { api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { helpCenterPages, type LoopbackSite, startLoopbackSite } from '../support/loopback-site';
import { indexWebsite } from '../support/sync';
import { createKey, createTenant, type TestKey } from '../support/tenants';
import { createTestUser, signedIn, type TestUser, type WebSession } from '../support/web-session';

/**
 * The interactions list names who asked (a user's name and email, an API
 * key's name), finds text in the question or the answer, and keeps to the
 * questions that were not answered.
 */
describe('Interactions: who asked, text search, not answered', () => {
  let service: TestService;
  let site: LoopbackSite;
  let helpful: string;
  let empty: string;
  let program: TestKey;
  let ana: TestUser;
  let anaSession: WebSession;

  const askAsAna = async (agentId: string, query: string) => {
    const response = await anaSession.request('/api/v1/query', {
      method: 'POST',
      body: { agent_id: agentId, query },
    });
    expect(response.status).toBe(200);
  };
  const askAsProgram = async (agentId: string, query: string) => {
    const response = await api(service.url, '/api/v1/query', {
      method: 'POST',
      key: program.key,
      body: { agent_id: agentId, query },
    });
    expect(response.status).toBe(200);
  };
  const list = (query: string, key = service.adminKey) =>
    api(service.url, `/api/v1/interactions?${query}`, { key });
  const listed = async (query: string) => {
    const response = await list(query);
    expect(response.status).toBe(200);
    return json(response);
  };

  beforeAll(async () => {
    [service, site] = await Promise.all([
      startTestService({ env: { SVC_ALLOW_PRIVATE_URLS: 'true' } }),
      startLoopbackSite(helpCenterPages),
    ]);
    const { source } = await indexWebsite(service, service.adminKey, site.url('/'));
    helpful = (
      await createAgent(service, service.adminKey, {
        name: 'Helpful',
        data_source_ids: [source.id],
      })
    ).id;
    empty = (await createAgent(service, service.adminKey, { name: 'Empty', data_source_ids: [] }))
      .id;
    program = await createKey(service, service.orgId, {
      name: 'Nightly report',
      scopes: ['Execute'],
    });
    ana = await createTestUser(service, { role: 'train' });
    anaSession = await signedIn(service, ana);

    await askAsAna(helpful, 'How long is the return window?');
    await askAsAna(empty, 'Where is the Lisbon office?');
    await askAsProgram(helpful, 'What does the warranty cover?');
    await askAsProgram(empty, 'Is there a Lisbon office?');
  });
  afterAll(async () => {
    await service.end();
    await site.close();
  });

  it("names who asked: a user's name and email, an API key's name", async () => {
    const body = await listed('limit=10');

    const byQuery = new Map(
      body.interactions.map((interaction: Record<string, any>) => [
        interaction.query,
        interaction.asked_by,
      ]),
    );
    expect(byQuery.get('How long is the return window?')).toEqual({
      type: 'user',
      id: ana.id,
      name: expect.stringMatching(/^User \d+$/),
      email: ana.email,
    });
    expect(byQuery.get('What does the warranty cover?')).toEqual({
      type: 'api_key',
      id: program.keyId,
      name: 'Nightly report',
      email: null,
    });
  });

  it('shows colleagues’ emails only to those who may list users', async () => {
    const viewer = await signedIn(service, await createTestUser(service, { role: 'readonly' }));

    const response = await viewer.request('/api/v1/interactions?q=return%20window');

    expect(response.status).toBe(200);
    expect(json(response).interactions[0].asked_by).toMatchObject({
      type: 'user',
      id: ana.id,
      name: expect.stringMatching(/^User \d+$/),
      email: null,
    });
  });

  it('finds text in the question, ignoring case, and counts only the matches', async () => {
    const body = await listed('q=LISBON%20office');

    expect(body.interactions.map((interaction: Record<string, any>) => interaction.query)).toEqual([
      'Is there a Lisbon office?',
      'Where is the Lisbon office?',
    ]);
    expect(body.total).toBe(2);
    const second = await listed('q=lisbon&limit=1&offset=1');
    expect(second).toMatchObject({ total: 2, limit: 1, offset: 1 });
    expect(second.interactions[0].query).toBe('Where is the Lisbon office?');
  });

  it('finds text in the answer too', async () => {
    const body = await listed(`q=${encodeURIComponent('no indexed sources yet')}`);

    expect(body.total).toBe(2);
    for (const interaction of body.interactions) expect(interaction.agent_id).toBe(empty);
  });

  it('keeps to the questions that were not answered, or to those that were', async () => {
    const notAnswered = await listed('answered=false');
    const answered = await listed('answered=true');

    expect(notAnswered.total).toBe(2);
    for (const interaction of notAnswered.interactions) {
      expect(interaction.response).toBe(NO_SOURCES_ANSWER);
    }
    expect(answered.total).toBe(2);
    for (const interaction of answered.interactions) {
      expect(interaction.agent_id).toBe(helpful);
      expect(interaction.sources.length).toBeGreaterThan(0);
    }
    // Combined with the other filters.
    const combined = await listed(`answered=false&agent_id=${empty}&q=where`);
    expect(combined.interactions.map((item: Record<string, any>) => item.query)).toEqual([
      'Where is the Lisbon office?',
    ]);
  });

  it("finds nothing of another organization's", async () => {
    const other = await createTenant(service);

    const response = await list('q=lisbon', other.key);

    expect(response.status).toBe(200);
    expect(json(response)).toMatchObject({ interactions: [], total: 0 });
  });

  it.each([
    ['an empty search', 'q=', 'q'],
    ['a search of spaces only', 'q=%20%20', 'q'],
    ['a search over 200 characters', `q=${'a'.repeat(201)}`, 'q'],
    ['answered neither true nor false', 'answered=maybe', 'answered'],
  ])('refuses %s with 400 naming the parameter', async (_case, query, path) => {
    const error = expectNestedError(await list(query), 400, 'invalid_request');

    expect(fieldPaths(error)).toContain(path);
  });
});
