import { citedSourceNumbers, renumberCitations } from '../../layers/core/domain/citations';
import {
  citationNumbers,
  expectQueryResult,
  expectQuotesFromCitedSources,
} from '../support/answers';
import { expectFlatError, expectNestedError, fieldPaths } from '../support/error-shapes';
import { createAgent, createDataSource } from '../support/fixtures';
import { type ApiResponse, api, json } from '../support/http-client';
import { unknownId } from '../support/ids';
import { startTestService, type TestService } from '../support/local-service';
import { helpCenterPages, type LoopbackSite, startLoopbackSite } from '../support/loopback-site';
import { parseEventStream } from '../support/sse';
import { indexWebsite } from '../support/sync';
import { createKey } from '../support/tenants';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';

const RETURNS_QUESTION = 'How many days do I have to return a widget for a full refund?';

/**
 * Query (spec: POST /api/v1/query; legacy /api/chat): answers from a help
 * center crawled from a loopback site, with the offline models (D20), as a
 * JSON result (D18) or a stream (D19).
 */
describe('Query', () => {
  const clock = new TestClock();
  let service: TestService;
  let site: LoopbackSite;
  let sourceId: string;
  let agent: Record<string, any>;

  beforeAll(async () => {
    [service, site] = await Promise.all([
      startTestService({ env: { SVC_ALLOW_PRIVATE_URLS: 'true' }, clock }),
      startLoopbackSite(helpCenterPages),
    ]);
    sourceId = (await indexWebsite(service, service.adminKey, site.url('/'))).source.id;
    agent = await createAgent(service, service.adminKey, {
      name: 'Help desk',
      data_source_ids: [sourceId],
    });
  });
  afterAll(async () => {
    await service.end();
    await site.close();
  });
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  const ask = (body: Record<string, unknown>, key = service.adminKey, path = '/api/v1/query') =>
    api(service.url, path, { method: 'POST', key, body });
  const updateAgent = async (id: string, changes: Record<string, unknown>) => {
    const response = await api(service.url, `/api/v1/agents/${id}`, {
      method: 'PUT',
      key: service.adminKey,
      body: changes,
    });
    expect(response.status).toBe(200);
  };
  const interaction = async (id: string) => {
    const list = json(
      await api(service.url, `/api/v1/interactions?limit=200`, { key: service.adminKey }),
    );
    return (list.interactions as Array<Record<string, any>>).find((item) => item.id === id);
  };

  describe('as JSON (D18)', () => {
    it('answers with cited sources and the metadata', async () => {
      const response = await ask({ agent_id: agent.id, query: RETURNS_QUESTION });

      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      const body = json(response);
      expectQueryResult(body, { rag_strategy: 'hybrid', model: 'offline-extractive' });
      expect(body.response).toContain('30 days');
      expect(body.sources.length).toBeGreaterThan(0);
      for (const source of body.sources) {
        expect(source.document_url.startsWith(site.origin)).toBe(true);
        // P214: each source's place in the agent's ranking, and the score that put it there.
        expect(Number.isInteger(source.rank) && source.rank >= 1).toBe(true);
        expect(source.score).toEqual(expect.any(Number));
      }
      expect(body.metadata.tokens_input).toBeGreaterThan(0);
      expect(body.metadata.tokens_output).toBeGreaterThan(0);
      expect(body.metadata.cost_usd).toBe(0); // the offline model costs nothing
      expectQuotesFromCitedSources(body);
      const cited = citationNumbers(body.response).map((n) => body.sources[n - 1]);
      expect(cited.some((source) => source.document_title === 'Returns policy')).toBe(true);
      // The offline answerer quotes its sources verbatim: every sentence is grounded, and each
      // cited source says which part of its text was quoted.
      expect(body.metadata.groundedness).toBe(1);
      for (const source of body.sources) expect(source.quoted_ranges.length).toBeGreaterThan(0);
    });

    it('records the interaction it answered', async () => {
      const body = json(await ask({ agent_id: agent.id, query: 'Is express shipping available?' }));

      expect(await interaction(body.metadata.interaction_id)).toMatchObject({
        id: body.metadata.interaction_id,
        agent_id: agent.id,
        session_id: body.metadata.session_id,
        query: 'Is express shipping available?',
        response: body.response,
        sources: body.sources,
        feedback: null,
        latency_ms: body.metadata.latency_ms,
      });
    });

    it.each(['similarity', 'hybrid', 'mmr', 'rerank'])(
      'answers with the %s strategy (D20)',
      async (strategy) => {
        await updateAgent(agent.id, { rag_strategy: strategy });

        const response = await ask({ agent_id: agent.id, query: 'What does the warranty cover?' });

        expect(response.status).toBe(200);
        const body = json(response);
        expectQueryResult(body, { rag_strategy: strategy, model: 'offline-extractive' });
        expect(body.sources.length).toBeGreaterThan(0);
        expect(body.response).toMatch(/warranty/i);
        expectQuotesFromCitedSources(body);
      },
    );

    it('refuses a disabled agent with 409, streamed or not, until it is enabled again (D20)', async () => {
      await updateAgent(agent.id, { status: 'disabled' });
      try {
        const plain = await ask({ agent_id: agent.id, query: RETURNS_QUESTION });
        const streamed = await ask({ agent_id: agent.id, query: RETURNS_QUESTION, stream: true });

        expect(expectNestedError(plain, 409, 'invalid_request').message).toMatch(/disabled/);
        expectNestedError(streamed, 409, 'invalid_request');
      } finally {
        await updateAgent(agent.id, { status: 'active' });
      }
      expect((await ask({ agent_id: agent.id, query: RETURNS_QUESTION })).status).toBe(200);
    });

    it('answers 404 for an unknown or deleted agent, 400 for a malformed id (D1)', async () => {
      const doomed = await createAgent(service, service.adminKey, {
        name: 'Doomed',
        data_source_ids: [sourceId],
      });
      await api(service.url, `/api/v1/agents/${doomed.id}`, {
        method: 'DELETE',
        key: service.adminKey,
      });

      expectNestedError(await ask({ agent_id: unknownId('agt'), query: 'hi' }), 404, 'not_found');
      expectNestedError(await ask({ agent_id: doomed.id, query: 'hi' }), 404, 'not_found');
      const malformed = await ask({ agent_id: sourceId, query: 'hi' });
      expect(fieldPaths(expectNestedError(malformed, 400, 'invalid_request'))).toEqual([
        'agent_id',
      ]);
    });

    it('says honestly that an agent without indexed sources cannot answer', async () => {
      const unsynced = await createDataSource(service, service.adminKey, {
        type: 'website',
        name: 'Never synced',
        config: { url: site.url('/'), max_pages: 5 },
        sync_frequency: 'manual',
      });
      for (const dataSourceIds of [[], [unsynced.id]]) {
        const empty = await createAgent(service, service.adminKey, {
          name: 'Empty',
          data_source_ids: dataSourceIds,
        });

        const response = await ask({ agent_id: empty.id, query: RETURNS_QUESTION });

        expect(response.status).toBe(200);
        const body = json(response);
        expectQueryResult(body);
        expect(body.sources).toEqual([]);
        expect(citationNumbers(body.response)).toEqual([]);
        expect(body.response).toMatch(/no indexed sources/i);
        expect(body.response).not.toContain('30 days');
        // An answer that claims nothing is not ungrounded.
        expect(body.metadata.groundedness).toBe(1);
      }
    });

    it('validates temperature and max_tokens per request (D18)', async () => {
      const cases: Array<[Record<string, unknown>, number, string?]> = [
        [{ temperature: 2.5 }, 400, 'temperature'],
        [{ temperature: -0.1 }, 400, 'temperature'],
        [{ temperature: '1' }, 400, 'temperature'],
        [{ max_tokens: 0 }, 400, 'max_tokens'],
        [{ max_tokens: 1.5 }, 400, 'max_tokens'],
        [{ max_tokens: 32_769 }, 400, 'max_tokens'],
        [{ temperature: 0 }, 200],
        [{ temperature: 2, max_tokens: 32_768 }, 200],
      ];
      for (const [change, status, field] of cases) {
        const response = await ask({ agent_id: agent.id, query: RETURNS_QUESTION, ...change });

        if (status === 200) expect({ change, status: response.status }).toEqual({ change, status });
        else
          expect(fieldPaths(expectNestedError(response, 400, 'invalid_request'))).toEqual([field]);
      }
    });

    it('keeps the answer within a per-request max_tokens', async () => {
      const short = json(await ask({ agent_id: agent.id, query: RETURNS_QUESTION, max_tokens: 8 }));

      expectQueryResult(short);
      expect(short.metadata.tokens_output).toBeGreaterThan(0);
      expect(short.metadata.tokens_output).toBeLessThanOrEqual(8);
    });

    it('limits the query to 4,000 characters (D17)', async () => {
      const longest = `${'refund '.repeat(571)}abc`.slice(0, 4_000);
      expect(longest).toHaveLength(4_000);

      const accepted = await ask({ agent_id: agent.id, query: longest });
      const refused = await ask({ agent_id: agent.id, query: `${longest}x` });
      const empty = await ask({ agent_id: agent.id, query: '   ' });

      expect(accepted.status).toBe(200);
      expect(fieldPaths(expectNestedError(refused, 400, 'invalid_request'))).toEqual(['query']);
      expect(fieldPaths(expectNestedError(empty, 400, 'invalid_request'))).toEqual(['query']);
    });

    it('refuses unknown fields and missing ones (D4)', async () => {
      const unknown = await ask({ agent_id: agent.id, query: 'hi', top_k: 3 });
      const missing = await ask({ query: 'hi' });

      expect(expectNestedError(unknown, 400, 'invalid_request').details.unknown_fields).toEqual([
        'top_k',
      ]);
      expect(fieldPaths(expectNestedError(missing, 400, 'invalid_request'))).toEqual(['agent_id']);
    });

    it('continues a conversation with session_id, and starts a new one without (D18)', async () => {
      const first = json(await ask({ agent_id: agent.id, query: 'What does the warranty cover?' }));
      const next = json(
        await ask({
          agent_id: agent.id,
          query: 'Does it cover dropping the widget?',
          session_id: first.metadata.session_id,
        }),
      );
      const fresh = json(await ask({ agent_id: agent.id, query: 'What does the warranty cover?' }));

      expectQueryResult(next);
      expect(next.metadata.session_id).toBe(first.metadata.session_id);
      expect(next.metadata.interaction_id).not.toBe(first.metadata.interaction_id);
      expect(fresh.metadata.session_id).not.toBe(first.metadata.session_id);
      expect((await interaction(next.metadata.interaction_id))?.session_id).toBe(
        first.metadata.session_id,
      );
    });

    it('uses the earlier turns of the session to answer a follow-up (D18)', async () => {
      const first = json(await ask({ agent_id: agent.id, query: 'What does the warranty cover?' }));

      const alone = json(await ask({ agent_id: agent.id, query: 'Tell me more.' }));
      const followUp = json(
        await ask({
          agent_id: agent.id,
          query: 'Tell me more.',
          session_id: first.metadata.session_id,
        }),
      );

      // On its own, "tell me more" asks nothing the sources answer.
      expect(citationNumbers(alone.response)).toEqual([]);
      expect(alone.response).not.toMatch(/warranty/i);
      // In the session, it continues the warranty question.
      expectQueryResult(followUp);
      expect(followUp.response).toMatch(/warranty/i);
      expectQuotesFromCitedSources(followUp);
    });

    it.each(['sess_123', 'abc', unknownId('agt'), 'SESS_01JF3Z8K7Q2M4N6P8R0S2T4V6W', ''])(
      'refuses the malformed session id %j with 400',
      async (sessionId) => {
        const response = await ask({ agent_id: agent.id, query: 'hi', session_id: sessionId });

        expect(fieldPaths(expectNestedError(response, 400, 'invalid_request'))).toEqual([
          'session_id',
        ]);
      },
    );

    it('refuses a model that needs a provider when none is configured, with a clear 400', async () => {
      // Saving such an agent is refused now; one saved while the deployment had a provider remains.
      const saved = await createAgent(service, service.adminKey, {
        name: 'Remote model',
        data_source_ids: [sourceId],
      });
      const { agents } = service.runtime.dependencies;
      const version = (await agents.getVersioned(service.orgId, saved.id))?.version ?? 0;
      const remote = await agents.update(
        service.orgId,
        saved.id,
        { model: 'gpt-4o-mini', updated_at: saved.updated_at },
        { expectedVersion: version, events: [] },
      );
      if (!remote) throw new Error('the agent could not be given its old model');
      const before = json(
        await api(service.url, '/api/v1/interactions', { key: service.adminKey }),
      );

      const plain = await ask({ agent_id: remote.id, query: RETURNS_QUESTION });
      const streamed = await ask({ agent_id: remote.id, query: RETURNS_QUESTION, stream: true });

      const error = expectNestedError(plain, 400, 'invalid_request');
      expect(error.message).toMatch(/gpt-4o-mini/);
      expect(error.message).toMatch(/OPENAI_API_KEY/);
      expect(error.message).toMatch(/offline-extractive/);
      expect(fieldPaths(error)).toEqual(['model']);
      // The model is checked before anything streams: the streamed request is the same plain 400.
      expect(expectNestedError(streamed, 400, 'invalid_request').message).toBe(error.message);
      // Nothing was answered, so nothing was recorded.
      const after = json(await api(service.url, '/api/v1/interactions', { key: service.adminKey }));
      expect(after.total).toBe(before.total);
    });

    it('needs the Execute scope (D9)', async () => {
      const read = await createKey(service, service.orgId, { scopes: ['Read', 'Write'] });
      const execute = await createKey(service, service.orgId, { scopes: ['Execute'] });

      const refused = await ask({ agent_id: agent.id, query: 'hi' }, read.key);
      const admitted = await ask({ agent_id: agent.id, query: RETURNS_QUESTION }, execute.key);

      expect(expectNestedError(refused, 403, 'forbidden').details.required_scope).toBe('Execute');
      expect(admitted.status).toBe(200);
    });
  });

  describe('streamed (D19)', () => {
    async function stream(body: Record<string, unknown>, path = '/api/v1/query') {
      const response = await ask({ ...body, stream: true }, service.adminKey, path);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      return { response, events: parseEventStream(response.text) };
    }

    it('sends sources first, then deltas, then done with the full result', async () => {
      const { events } = await stream({ agent_id: agent.id, query: RETURNS_QUESTION });

      const names = events.map((event) => event.event);
      expect(names[0]).toBe('sources');
      expect(names.at(-1)).toBe('done');
      const middle = names.slice(1, -1);
      expect(middle.length).toBeGreaterThanOrEqual(1);
      expect(new Set(middle)).toEqual(new Set(['delta']));

      const sources = events[0]?.data as Record<string, any>;
      expect(Object.keys(sources)).toEqual(['sources']);
      const done = events.at(-1)?.data as Record<string, any>;
      const deltas = events.slice(1, -1).map((event) => {
        expect(Object.keys(event.data)).toEqual(['text']);
        expect(typeof event.data.text).toBe('string');
        return event.data.text as string;
      });
      // Issue 10, P174: the deltas cite the sources event's numbers; done lists only the cited
      // sources, renumbered so [n] is done.sources[n - 1], and its response says so.
      const streamed = deltas.join('');
      const cited = citedSourceNumbers(
        streamed,
        sources.sources.map((_: unknown, index: number) => index + 1),
      );
      expect(cited.length).toBeGreaterThan(0);
      expect(renumberCitations(streamed, cited)).toBe(done.response);
      // The sources event comes before the answer: nothing is quoted yet.
      for (const source of sources.sources) expect(source.quoted_ranges).toEqual([]);
      // done: the whole result, without re-sending each chunk's text; each source says which
      // part of the text the sources event sent the answer quotes.
      expect(done).toEqual({
        response: expect.any(String),
        sources: cited.map((number) => {
          const { chunk_text: _, ...rest } = sources.sources[number - 1];
          return { ...rest, quoted_ranges: expect.any(Array) };
        }),
        metadata: expect.objectContaining({
          rag_strategy: expect.any(String),
          groundedness: 1,
        }),
      });
      const withTexts = done.sources.map((source: Record<string, any>, index: number) => ({
        ...source,
        chunk_text: sources.sources[(cited[index] ?? 0) - 1].chunk_text,
      }));
      expectQueryResult({ ...done, sources: withTexts }, { model: 'offline-extractive' });
      const first = withTexts[0];
      expect(first.quoted_ranges.length).toBeGreaterThan(0);
      const quoted = first.quoted_ranges
        .map((range: { start: number; end: number }) =>
          first.chunk_text.slice(range.start, range.end),
        )
        .join(' ');
      expect(quoted).toContain('30 days');
      expect(done.response).toContain('30 days');
      expect(await interaction(done.metadata.interaction_id)).toMatchObject({
        response: done.response,
        sources: withTexts,
      });
    });

    it('continues a session in a stream', async () => {
      const first = json(await ask({ agent_id: agent.id, query: RETURNS_QUESTION }));

      const { events } = await stream({
        agent_id: agent.id,
        query: 'And gift cards?',
        session_id: first.metadata.session_id,
      });

      expect(events.at(-1)?.data.metadata.session_id).toBe(first.metadata.session_id);
    });

    it('answers a plain JSON 404 (not a stream) for an unknown agent', async () => {
      const response = await ask({ agent_id: unknownId('agt'), query: 'hi', stream: true });

      expectNestedError(response, 404, 'not_found');
      expect(response.headers.get('content-type')).not.toMatch(/event-stream/);
    });

    it('answers a plain JSON 400 for an invalid streamed request', async () => {
      const response = await ask({ agent_id: agent.id, query: 'hi', stream: true, temperature: 3 });

      expect(fieldPaths(expectNestedError(response, 400, 'invalid_request'))).toEqual([
        'temperature',
      ]);
    });

    it('streams from an agent without indexed sources: empty sources, the honest answer', async () => {
      const empty = await createAgent(service, service.adminKey, {
        name: 'Empty',
        data_source_ids: [],
      });

      const { events } = await stream({ agent_id: empty.id, query: RETURNS_QUESTION });

      expect(events.map((event) => event.event)).toEqual(['sources', 'delta', 'done']);
      expect(events[0]?.data).toEqual({ sources: [] });
      expect(events[2]?.data).toMatchObject({ sources: [], response: events[1]?.data.text });
    });
  });

  describe('legacy /api/chat (D7, D8)', () => {
    function expectDeprecated(response: ApiResponse): void {
      expect(response.headers.get('deprecation')).toBe('true');
      expect(response.headers.get('link')).toBe('</api/v1/query>; rel="successor-version"');
    }

    it('answers camelCase requests like /api/v1/query, in snake_case', async () => {
      const first = json(await ask({ agent_id: agent.id, query: RETURNS_QUESTION }));

      const response = await ask(
        {
          agentId: agent.id,
          query: 'Can gift cards be refunded?',
          sessionId: first.metadata.session_id,
          maxTokens: 200,
          temperature: 0.5,
        },
        service.adminKey,
        '/api/chat',
      );

      expect(response.status).toBe(200);
      expectDeprecated(response);
      const body = json(response);
      expectQueryResult(body);
      expect(body.metadata.session_id).toBe(first.metadata.session_id);
      expect(body.response).toMatch(/gift cards/i);
      expect(JSON.stringify(body)).not.toMatch(/"(sessionId|interactionId|chunkId)"/);
    });

    it('streams on /api/chat too', async () => {
      const response = await ask(
        { agentId: agent.id, query: RETURNS_QUESTION, stream: true },
        service.adminKey,
        '/api/chat',
      );

      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const names = parseEventStream(response.text).map((event) => event.event);
      expect(names[0]).toBe('sources');
      expect(names.at(-1)).toBe('done');
    });

    it('answers errors in the flat legacy shape (D5)', async () => {
      const chat = (body: Record<string, unknown>) => ask(body, service.adminKey, '/api/chat');

      const unknown = await chat({ agentId: unknownId('agt'), query: 'hi' });
      const streamedUnknown = await chat({ agentId: unknownId('agt'), query: 'hi', stream: true });
      const twice = await chat({ agentId: agent.id, agent_id: agent.id, query: 'hi' });
      const tooWarm = await chat({ agentId: agent.id, query: 'hi', temperature: 2.5 });

      expectFlatError(unknown, 404);
      expectFlatError(streamedUnknown, 404);
      expectFlatError(twice, 400);
      expectFlatError(tooWarm, 400);
    });
  });
});
