import { createAgent } from '../support/fixtures';
import { api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { createKey, type TestKey } from '../support/tenants';
import { createTestUser, signedIn, type WebSession } from '../support/web-session';

/** `YYYY-MM-DD` of today, `offset` days away (UTC). */
const day = (offset = 0) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

/**
 * Analytics' unique users count people: a signed-in user by their user id,
 * a program by its API key, each once however many conversations they had.
 */
describe('Analytics unique users', () => {
  let service: TestService;
  let agentId: string;
  let otherAgentId: string;
  let program: TestKey;
  let ana: WebSession;
  let ben: WebSession;

  /** Asks as a signed-in person; a new conversation unless `sessionId` continues one. */
  const askAsPerson = async (person: WebSession, agent: string, sessionId?: string) => {
    const response = await person.request('/api/v1/query', {
      method: 'POST',
      body: {
        agent_id: agent,
        query: 'Where is the office?',
        ...(sessionId ? { session_id: sessionId } : {}),
      },
    });
    expect(response.status).toBe(200);
    return json(response).metadata.session_id as string;
  };
  const askAsProgram = async (agent: string) => {
    const response = await api(service.url, '/api/v1/query', {
      method: 'POST',
      key: program.key,
      body: { agent_id: agent, query: 'What are the opening hours?' },
    });
    expect(response.status).toBe(200);
    return json(response).metadata.session_id as string;
  };
  const metrics = async (extra = '') => {
    const response = await api(
      service.url,
      `/api/v1/analytics?start_date=${day(-1)}&end_date=${day(1)}${extra}`,
      { key: service.adminKey },
    );
    expect(response.status).toBe(200);
    return json(response).metrics;
  };

  beforeAll(async () => {
    service = await startTestService();
    agentId = (await createAgent(service, service.adminKey, { name: 'Desk', data_source_ids: [] }))
      .id;
    otherAgentId = (
      await createAgent(service, service.adminKey, { name: 'Other', data_source_ids: [] })
    ).id;
    program = await createKey(service, service.orgId, { name: 'Nightly report' });
    ana = await signedIn(service, await createTestUser(service, { role: 'readonly' }));
    ben = await signedIn(service, await createTestUser(service, { role: 'readonly' }));
  });
  afterAll(() => service.end());

  it('counts one person asking in three conversations once', async () => {
    const sessions = [
      await askAsPerson(ana, agentId),
      await askAsPerson(ana, agentId),
      await askAsPerson(ana, agentId),
    ];

    expect(new Set(sessions).size).toBe(3);
    expect(await metrics()).toMatchObject({ total_queries: 3, unique_users: 1 });
  });

  it('counts another person and a program once each, across agents and conversations', async () => {
    const first = await askAsPerson(ben, agentId);
    await askAsPerson(ben, agentId, first);
    await askAsProgram(agentId);
    await askAsProgram(otherAgentId);
    await askAsPerson(ana, otherAgentId);

    expect(await metrics()).toMatchObject({ total_queries: 8, unique_users: 3 });
    // One agent's figures count the people who asked that agent.
    expect(await metrics(`&agent_id=${otherAgentId}`)).toMatchObject({
      total_queries: 2,
      unique_users: 2,
    });
  });
});
