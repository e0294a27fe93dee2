import { expectNestedError } from '../support/error-shapes';
import { createAgent } from '../support/fixtures';
import { api, json } from '../support/http-client';
import { unknownId } from '../support/ids';
import { startTestService, type TestService } from '../support/local-service';
import { helpCenterPages, type LoopbackSite, startLoopbackSite } from '../support/loopback-site';
import { indexWebsite } from '../support/sync';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';
import { createTestUser, signedIn, type TestUser, type WebSession } from '../support/web-session';

/**
 * A person's own conversations (GET /api/v1/conversations): the sessions
 * they asked in, with their first question, and each one whole again.
 * Another person's, or a program's, are not theirs to list or read; an
 * administrator reads everyone's interactions through GET /api/v1/interactions.
 */
describe('Conversations', () => {
  const clock = new TestClock();
  let service: TestService;
  let site: LoopbackSite;
  let agentId: string;
  let otherAgentId: string;
  let adaUser: TestUser;
  let bobUser: TestUser;
  /** Signed in anew whenever the clock jumps: a session does not outlive its days. */
  let ada: WebSession;
  let bob: WebSession;
  const sessions = {} as Record<'adaFirst' | 'adaSecond' | 'adaOther' | 'bob' | 'key', string>;

  /** Asks as a signed-in person or with the admin key; returns the session id. */
  const ask = async (
    as: 'ada' | 'bob' | 'key',
    at: string,
    body: { agent_id: string; query: string; session_id?: string },
  ) => {
    clock.advanceTo(at);
    const response =
      as === 'key'
        ? await api(service.url, '/api/v1/query', { method: 'POST', key: service.adminKey, body })
        : await (await signedIn(service, as === 'ada' ? adaUser : bobUser)).request(
            '/api/v1/query',
            { method: 'POST', body },
          );
    expect(response.status).toBe(200);
    return json(response).metadata.session_id as string;
  };

  beforeAll(async () => {
    [service, site] = await Promise.all([
      startTestService({ env: { SVC_ALLOW_PRIVATE_URLS: 'true' }, clock }),
      startLoopbackSite(helpCenterPages),
    ]);
    const { source } = await indexWebsite(service, service.adminKey, site.url('/'));
    agentId = (
      await createAgent(service, service.adminKey, {
        name: 'Help desk',
        data_source_ids: [source.id],
      })
    ).id;
    otherAgentId = (
      await createAgent(service, service.adminKey, { name: 'Other', data_source_ids: [source.id] })
    ).id;
    adaUser = await createTestUser(service, { role: 'readonly' });
    bobUser = await createTestUser(service, { role: 'readonly' });

    sessions.adaFirst = await ask('ada', '2027-03-01T09:00:00.000Z', {
      agent_id: agentId,
      query: 'How long is the return window?',
    });
    await ask('ada', '2027-03-01T09:01:00.000Z', {
      agent_id: agentId,
      query: 'And for gift cards?',
      session_id: sessions.adaFirst,
    });
    sessions.adaSecond = await ask('ada', '2027-03-02T10:00:00.000Z', {
      agent_id: agentId,
      query: 'What does the warranty cover?',
    });
    sessions.adaOther = await ask('ada', '2027-03-02T11:00:00.000Z', {
      agent_id: otherAgentId,
      query: 'Is standard shipping free?',
    });
    sessions.bob = await ask('bob', '2027-03-03T08:00:00.000Z', {
      agent_id: agentId,
      query: 'How fast is express shipping?',
    });
    sessions.key = await ask('key', '2027-03-03T09:00:00.000Z', {
      agent_id: agentId,
      query: 'Can gift cards be refunded?',
    });
    // Ada continues her first conversation last: it becomes her most recent one.
    await ask('ada', '2027-03-04T12:00:00.000Z', {
      agent_id: agentId,
      query: 'Who pays for the return shipping?',
      session_id: sessions.adaFirst,
    });
  });
  afterAll(async () => {
    await service.end();
    await site.close();
  });
  beforeEach(async () => {
    clock.advance(REFILL_ALL_BUCKETS_MS);
    [ada, bob] = await Promise.all([signedIn(service, adaUser), signedIn(service, bobUser)]);
  });

  // Signing in moves the test clock on by a moment, so times are matched to the second.
  it("lists a person's own conversations, most recently continued first, each named by its first question", async () => {
    const response = await ada.request(`/api/v1/conversations?agent_id=${agentId}`);

    expect(response.status).toBe(200);
    expect(json(response)).toEqual({
      conversations: [
        {
          session_id: sessions.adaFirst,
          agent_id: agentId,
          first_question: 'How long is the return window?',
          turns: 3,
          started_at: expect.stringMatching(/^2027-03-01T09:00:0/),
          last_asked_at: expect.stringMatching(/^2027-03-04T12:00:0/),
        },
        {
          session_id: sessions.adaSecond,
          agent_id: agentId,
          first_question: 'What does the warranty cover?',
          turns: 1,
          started_at: expect.stringMatching(/^2027-03-02T10:00:0/),
          last_asked_at: expect.stringMatching(/^2027-03-02T10:00:0/),
        },
      ],
      total: 2,
      limit: 50,
      offset: 0,
    });
  });

  it('lists the conversations with every agent without agent_id, a page at a time', async () => {
    const all = json(await ada.request('/api/v1/conversations'));
    const page = json(await ada.request('/api/v1/conversations?limit=1&offset=1'));

    expect(all.conversations.map((item: { session_id: string }) => item.session_id)).toEqual([
      sessions.adaFirst,
      sessions.adaOther,
      sessions.adaSecond,
    ]);
    expect(page).toMatchObject({ total: 3, limit: 1, offset: 1 });
    expect(page.conversations).toEqual([
      expect.objectContaining({ session_id: sessions.adaOther }),
    ]);
  });

  it('reopens a conversation with its answers and sources, oldest first', async () => {
    const response = await ada.request(`/api/v1/conversations/${sessions.adaFirst}`);

    expect(response.status).toBe(200);
    const body = json(response);
    expect(body).toMatchObject({ session_id: sessions.adaFirst, agent_id: agentId });
    expect(body.interactions.map((item: { query: string }) => item.query)).toEqual([
      'How long is the return window?',
      'And for gift cards?',
      'Who pays for the return shipping?',
    ]);
    const [first] = body.interactions;
    expect(first.response).toContain('[1]');
    expect(first.sources[0]).toMatchObject({
      chunk_text: expect.any(String),
      document_title: expect.any(String),
      quoted_ranges: expect.any(Array),
    });
  });

  it("neither lists nor opens another person's conversation, answering as for one that does not exist", async () => {
    const listed = json(await bob.request('/api/v1/conversations'));
    const others = await bob.request(`/api/v1/conversations/${sessions.adaFirst}`);
    const unknown = await bob.request(`/api/v1/conversations/${unknownId('sess')}`);

    expect(listed.conversations.map((item: { session_id: string }) => item.session_id)).toEqual([
      sessions.bob,
    ]);
    expectNestedError(others, 404, 'not_found');
    expectNestedError(unknown, 404, 'not_found');
    expect(json(others).error.message).toBe(
      json(unknown).error.message.replace(/sess_\w+/, sessions.adaFirst),
    );
  });

  it("gives a program its own key's conversations, not the people's", async () => {
    const response = await api(service.url, '/api/v1/conversations', { key: service.adminKey });

    expect(json(response).conversations).toEqual([
      expect.objectContaining({
        session_id: sessions.key,
        first_question: 'Can gift cards be refunded?',
      }),
    ]);
  });

  it("lets an administrator read anyone's questions through the interactions list", async () => {
    const response = await api(service.url, `/api/v1/interactions?agent_id=${agentId}`, {
      key: service.adminKey,
    });

    const sessionsListed = new Set(
      json(response).interactions.map((item: { session_id: string }) => item.session_id),
    );
    expect(sessionsListed).toEqual(
      new Set([sessions.adaFirst, sessions.adaSecond, sessions.bob, sessions.key]),
    );
  });

  it("does not let anyone continue another's conversation, answering as for one that does not exist", async () => {
    const body = (sessionId: string) => ({
      agent_id: agentId,
      query: 'What did I ask before?',
      session_id: sessionId,
    });
    const bobContinuesAda = await bob.request('/api/v1/query', {
      method: 'POST',
      body: body(sessions.adaFirst),
    });
    const keyContinuesBob = await api(service.url, '/api/v1/query', {
      method: 'POST',
      key: service.adminKey,
      body: body(sessions.bob),
    });
    const adaContinuesKey = await ada.request('/api/v1/query', {
      method: 'POST',
      body: body(sessions.key),
    });

    for (const response of [bobContinuesAda, keyContinuesBob, adaContinuesKey]) {
      expectNestedError(response, 404, 'not_found');
    }
    expect(json(bobContinuesAda).error.message).toBe(`No conversation ${sessions.adaFirst}`);
    // Nothing was recorded: Bob's own list is as it was.
    const listed = json(await bob.request('/api/v1/conversations'));
    expect(listed.conversations.map((item: { session_id: string }) => item.session_id)).toEqual([
      sessions.bob,
    ]);
  });

  it('refuses an id that is not a session id', async () => {
    const response = await ada.request('/api/v1/conversations/int_01hzzzzzzzzzzzzzzzzzzzzzzz');

    expectNestedError(response, 400, 'invalid_request');
  });
});
