// Must come first: sets the loggers' level before any function module builds its logger.
import '../support/log-everything';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../layers/core/adapters/dynamodb/table-design';
import { CapturedOutput } from '../support/captured-output';
import { expectNestedError, fieldPaths } from '../support/error-shapes';
import { createAgent } from '../support/fixtures';
import { api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { helpCenterPages, type LoopbackSite, startLoopbackSite } from '../support/loopback-site';
import { type ModelProviders, startModelProviders } from '../support/model-providers';
import { parseEventStream } from '../support/sse';
import { indexWebsite } from '../support/sync';
import { createKey, createTenant } from '../support/tenants';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';
import { createTestUser, signedIn } from '../support/web-session';

/**
 * D33 model keys over HTTP, against the real local runtime, and agents
 * answering with them through `POST /api/v1/query` and the streaming chat
 * route. No real provider is reachable here: the providers are a loopback
 * server (test/support/model-providers.ts) whose responses follow the
 * providers' documentation (OpenAI's Chat Completions and Models; Anthropic's
 * Messages streaming events, Models and error bodies) and are served from
 * the fixtures in test/fixtures/{openai,anthropic}.
 */
const OPENAI_KEY = 'sk-proj-e2eOpenAiKey0000000000000000000000000001';
const ANTHROPIC_KEY = 'sk-ant-api03-e2eAnthropicKey00000000000000000002';
const CUSTOM_KEY = 'custom-e2e-key-0000000000000000000000000003';
const SECRETS = [OPENAI_KEY, ANTHROPIC_KEY, CUSTOM_KEY];
const QUESTION = 'How many days do I have to return a widget for a full refund?';

/**
 * Everything the process writes, scanned for keys at the end (D33: never
 * logged). The service's DEBUG lines are kept for the scan, not printed:
 * jest's own output stays readable.
 */
const output = new CapturedOutput((text) => text.startsWith('{"level"'));
const captured = output.seen;

describe('Model keys (D33)', () => {
  const clock = new TestClock();
  let service: TestService;
  let site: LoopbackSite;
  let providers: ModelProviders;
  let sourceId: string;

  beforeAll(async () => {
    output.start();
    // In a jest worker the console is jest's buffered one, which reaches
    // stdout only through the parent process: the loggers' lines are taken
    // where they are written.
    for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
      const original = console[level].bind(console);
      jest.spyOn(console, level).mockImplementation((...args: unknown[]) => {
        captured.push(args.map(String).join(' '));
        original(...args);
      });
    }
    providers = await startModelProviders();
    [service, site] = await Promise.all([
      startTestService({
        env: {
          SVC_ALLOW_PRIVATE_URLS: 'true',
          SVC_MODEL_KEY_OPENAI_URL: providers.openaiUrl,
          SVC_MODEL_KEY_ANTHROPIC_URL: providers.anthropicUrl,
          // Everything the service logs, so the scan below sees the most there is.
          LOG_LEVEL: 'DEBUG',
        },
        clock,
      }),
      startLoopbackSite(helpCenterPages),
    ]);
    sourceId = (await indexWebsite(service, service.adminKey, site.url('/'))).source.id;
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    output.stop();
    await service.end();
    await site.close();
    await providers.close();
  });
  beforeEach(() => {
    clock.advance(REFILL_ALL_BUCKETS_MS);
    providers.mode = 'ok';
  });

  const register = (body: Record<string, unknown>, key = service.adminKey) =>
    api(service.url, '/api/v1/model-keys', { method: 'POST', key, body });
  const registered = async (body: Record<string, unknown>) => {
    const response = await register(body);
    expect(response.status).toBe(201);
    return json(response);
  };
  const ask = (body: Record<string, unknown>, path = '/api/v1/query') =>
    api(service.url, path, { method: 'POST', key: service.adminKey, body });

  describe('registering', () => {
    it('checks the key with one call, stores it sealed and shows only last4', async () => {
      const before = providers.requests.length;
      const created = await registered({ provider: 'openai', key: OPENAI_KEY, name: 'Ours' });

      expect(created).toEqual({
        id: expect.stringMatching(/^mk_[0-9a-z]{26}$/),
        name: 'Ours',
        provider: 'openai',
        endpoint: null,
        last4: OPENAI_KEY.slice(-4),
        created_at: expect.any(String),
        agents: [],
      });
      // P132: one cheap call, GET /models, with the key.
      const calls = providers.requests.slice(before);
      expect(calls.map((call) => `${call.method} ${call.path}`)).toEqual(['GET /openai/v1/models']);
      expect(calls[0]?.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
      // At rest: the Encryption SDK's message, not the key.
      const stored = await service.runtime.dependencies.modelKeys.getSealed(
        service.orgId,
        created.id,
      );
      expect(stored?.sealedKey).toBeDefined();
      expect(stored?.sealedKey).not.toContain(OPENAI_KEY);
      expect(Buffer.from(stored?.sealedKey ?? '', 'base64').toString('latin1')).not.toContain(
        OPENAI_KEY,
      );
      // Never returned again.
      const got = await api(service.url, `/api/v1/model-keys/${created.id}`, {
        key: service.adminKey,
      });
      const list = await api(service.url, '/api/v1/model-keys', { key: service.adminKey });
      expect(json(got)).toEqual(created);
      expect(json(list).model_keys).toContainEqual(created);
      for (const response of [got, list]) expect(response.text).not.toContain(OPENAI_KEY);
    });

    it('checks an Anthropic key with its Models API (x-api-key, anthropic-version)', async () => {
      const before = providers.requests.length;
      const created = await registered({ provider: 'anthropic', key: ANTHROPIC_KEY });

      expect(created).toMatchObject({
        provider: 'anthropic',
        endpoint: null,
        last4: ANTHROPIC_KEY.slice(-4),
      });
      const [call] = providers.requests.slice(before);
      expect(call?.path).toBe('/anthropic/v1/models?limit=1');
      expect(call?.headers['x-api-key']).toBe(ANTHROPIC_KEY);
      expect(call?.headers['anthropic-version']).toBe('2023-06-01');
    });

    it('refuses a key the provider refuses with 400 and the provider reason, storing nothing', async () => {
      providers.mode = 'revoked';
      const before = json(
        await api(service.url, '/api/v1/model-keys', { key: service.adminKey }),
      ).total;

      for (const provider of ['openai', 'anthropic']) {
        const response = await register({ provider, key: `${provider}-revoked-key-000000` });
        const error = expectNestedError(response, 400, 'invalid_request');
        expect(fieldPaths(error)).toEqual(['key']);
        expect(error.details.provider_reason).toMatch(
          provider === 'openai' ? /Incorrect API key provided/ : /invalid x-api-key/,
        );
      }
      const after = json(
        await api(service.url, '/api/v1/model-keys', { key: service.adminKey }),
      ).total;
      expect(after).toBe(before);
    });

    it('answers 429 with Retry-After when the provider rate limits the check, 503 when it is down', async () => {
      providers.mode = 'rate_limited';
      const limited = await register({ provider: 'openai', key: OPENAI_KEY });
      expect(expectNestedError(limited, 429, 'rate_limit_exceeded').details.reason).toBe(
        'model_provider',
      );
      expect(limited.headers.get('retry-after')).toBe('7');

      providers.mode = 'down';
      const down = await register({ provider: 'anthropic', key: ANTHROPIC_KEY });
      expectNestedError(down, 503, 'service_unavailable');
      expect(down.headers.get('retry-after')).toMatch(/^\d+$/);
    });

    it('takes an endpoint for custom only, and checks it (D35 allows loopback here only by SVC_ALLOW_PRIVATE_URLS)', async () => {
      const custom = await registered({
        provider: 'custom',
        key: CUSTOM_KEY,
        endpoint: providers.customUrl,
      });
      expect(custom.endpoint).toBe(providers.customUrl);

      const missing = expectNestedError(
        await register({ provider: 'custom', key: CUSTOM_KEY }),
        400,
        'invalid_request',
      );
      expect(fieldPaths(missing)).toEqual(['endpoint']);
      const extra = await register({
        provider: 'openai',
        key: OPENAI_KEY,
        endpoint: providers.customUrl,
      });
      expect(fieldPaths(expectNestedError(extra, 400, 'invalid_request'))).toEqual(['endpoint']);
      // Not an OpenAI-compatible endpoint: GET /models is a 404 there.
      const wrong = await register({
        provider: 'custom',
        key: CUSTOM_KEY,
        endpoint: site.url('/'),
      });
      expect(fieldPaths(expectNestedError(wrong, 400, 'invalid_request'))).toEqual(['endpoint']);
      for (const endpoint of [
        'ftp://127.0.0.1/v1',
        'not a url',
        'https://user:pw@example.com/v1',
      ]) {
        const refused = await register({ provider: 'custom', key: CUSTOM_KEY, endpoint });
        expect(fieldPaths(expectNestedError(refused, 400, 'invalid_request'))).toEqual([
          'endpoint',
        ]);
      }
    });

    it.each([
      [{}, ['provider', 'key']],
      [{ provider: 'mistral', key: OPENAI_KEY }, ['provider']],
      [{ provider: 'openai', key: 'short' }, ['key']],
      [{ provider: 'openai', key: 'has a space in it 12345' }, ['key']],
      [{ provider: 'openai', key: OPENAI_KEY, extra: 1 }, ['']],
      [{ provider: 'openai', key: 12345678 }, ['key']],
    ])('refuses the body %j with 400 naming %j', async (body, paths) => {
      const error = expectNestedError(await register(body), 400, 'invalid_request');
      for (const path of paths) expect(fieldPaths(error).join(',')).toContain(path);
    });
  });

  describe('who may', () => {
    it('needs the Admin scope and the admin role (P130)', async () => {
      const writer = await createKey(service, service.orgId, {
        scopes: ['Read', 'Write', 'Execute'],
      });
      for (const [method, path] of [
        ['GET', '/api/v1/model-keys'],
        ['POST', '/api/v1/model-keys'],
      ] as const) {
        const response = await api(service.url, path, {
          method,
          key: writer.key,
          ...(method === 'POST' ? { body: { provider: 'openai', key: OPENAI_KEY } } : {}),
        });
        expect(expectNestedError(response, 403, 'forbidden').details.required_scope).toBe('Admin');
      }
      const configure = await signedIn(
        service,
        await createTestUser(service, { role: 'configure' }),
      );
      const refused = await configure.request('/api/v1/model-keys');
      expect(expectNestedError(refused, 403, 'forbidden').details.required_role).toBe('admin');
      const admin = await signedIn(service, await createTestUser(service, { role: 'admin' }));
      const made = await admin.request('/api/v1/model-keys', {
        method: 'POST',
        body: { provider: 'openai', key: OPENAI_KEY },
      });
      expect(made.status).toBe(201);
      expect(made.text).not.toContain(OPENAI_KEY);
    });

    it("answers another organization's key as one that does not exist", async () => {
      const mine = await registered({ provider: 'openai', key: OPENAI_KEY });
      const other = await createTenant(service);
      for (const method of ['GET', 'DELETE'] as const) {
        const response = await api(service.url, `/api/v1/model-keys/${mine.id}`, {
          method,
          key: other.key,
        });
        expectNestedError(response, 404, 'not_found');
      }
      expect(json(await api(service.url, '/api/v1/model-keys', { key: other.key })).total).toBe(0);
      // Nor can its agents name it.
      const agent = await api(service.url, '/api/v1/agents', {
        method: 'POST',
        key: other.key,
        body: { name: 'Thief', data_source_ids: [], model: 'gpt-4o-mini', model_key_id: mine.id },
      });
      expect(fieldPaths(expectNestedError(agent, 400, 'invalid_request'))).toEqual([
        'model_key_id',
      ]);
      // Malformed ids are 400 (D1).
      expectNestedError(
        await api(service.url, '/api/v1/model-keys/agt_1', { key: service.adminKey }),
        400,
        'invalid_request',
      );
    });
  });

  describe('agents answering with a key', () => {
    it('checks that the model fits the provider (P133)', async () => {
      const anthropic = await registered({ provider: 'anthropic', key: ANTHROPIC_KEY });
      const openai = await registered({ provider: 'openai', key: OPENAI_KEY });
      for (const [model, key] of [
        ['gpt-4o-mini', anthropic.id],
        ['claude-sonnet-5-5', openai.id],
        ['offline-extractive', openai.id],
      ]) {
        const response = await api(service.url, '/api/v1/agents', {
          method: 'POST',
          key: service.adminKey,
          body: { name: 'Misfit', data_source_ids: [], model, model_key_id: key },
        });
        expect(fieldPaths(expectNestedError(response, 400, 'invalid_request'))).toEqual(['model']);
      }
    });

    it.each([
      [
        'openai',
        'gpt-4o-mini',
        () => ({ key: OPENAI_KEY }),
        'Refunds are available within 30 days',
      ],
      [
        'anthropic',
        'claude-sonnet-5-5',
        () => ({ key: ANTHROPIC_KEY }),
        'You can return a widget within 30 days',
      ],
      [
        'custom',
        'llama-3.1-70b',
        () => ({ key: CUSTOM_KEY, endpoint: providers.customUrl }),
        'Refunds are available within 30 days',
      ],
    ] as const)(
      'answers with a %s key through /api/v1/query and the streaming chat route, billed to the key',
      async (provider, model, keyOf, expected) => {
        const modelKey = await registered({ provider, ...keyOf() });
        const agent = await createAgent(service, service.adminKey, {
          name: `${provider} agent`,
          data_source_ids: [sourceId],
          model,
          model_key_id: modelKey.id,
        });
        expect(agent.model_key_id).toBe(modelKey.id);
        const before = providers.requests.length;

        const answer = await ask({ agent_id: agent.id, query: QUESTION });
        expect(answer.status).toBe(200);
        const body = json(answer);
        expect(body.response).toContain(expected);
        expect(body.metadata).toMatchObject({ billed_to: 'model_key', model_key_id: modelKey.id });
        expect(body.metadata.tokens_input).toBe(provider === 'anthropic' ? 398 : 412);
        // Grounded as the offline answer is: the Anthropic answer restates its source; the
        // OpenAI-shaped one adds "Enterprise contracts are refunded pro rata", which nothing says.
        if (provider === 'anthropic') expect(body.metadata.groundedness).toBe(1);
        else expect(body.metadata.groundedness).toBeLessThan(1);

        const streamed = await ask(
          { agent_id: agent.id, query: QUESTION, stream: true },
          '/api/chat',
        );
        expect(streamed.status).toBe(200);
        expect(streamed.headers.get('content-type')).toMatch(/^text\/event-stream/);
        const events = parseEventStream(streamed.text);
        expect(events[0]?.event).toBe('sources');
        expect(events.filter((event) => event.event === 'delta').length).toBeGreaterThanOrEqual(2);
        const done = events.at(-1);
        expect(done?.event).toBe('done');
        expect(done?.data.metadata).toMatchObject({
          billed_to: 'model_key',
          model_key_id: modelKey.id,
        });

        // The provider got the organization's key, on its own wire format.
        const calls = providers.requests.slice(before);
        expect(calls).toHaveLength(2);
        for (const call of calls) {
          if (provider === 'anthropic') {
            expect(call.path).toBe('/anthropic/v1/messages');
            const sent =
              call.headers['x-api-key'] ?? call.headers.authorization?.replace(/^Bearer /, '');
            expect(sent).toBe(ANTHROPIC_KEY);
            expect(call.headers['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
            expect(call.body).toMatchObject({ model, stream: true, max_tokens: 1024 });
            expect(call.body.system).toContain('cite the sources');
          } else {
            expect(call.path).toBe(
              provider === 'custom' ? '/custom/v1/chat/completions' : '/openai/v1/chat/completions',
            );
            expect(call.headers.authorization).toBe(`Bearer ${keyOf().key}`);
            expect(call.body).toMatchObject({ model, stream: true });
          }
        }
        // The interaction says who paid.
        const interactions = json(
          await api(service.url, `/api/v1/interactions?agent_id=${agent.id}`, {
            key: service.adminKey,
          }),
        );
        for (const item of interactions.interactions) {
          expect(item).toMatchObject({ billed_to: 'model_key', model_key_id: modelKey.id });
        }
      },
    );

    it('reports costs billed to the key apart from the service’s (P131)', async () => {
      const modelKey = await registered({ provider: 'openai', key: OPENAI_KEY });
      const agent = await createAgent(service, service.adminKey, {
        name: 'Costed',
        data_source_ids: [sourceId],
        model: 'gpt-4o-mini',
        model_key_id: modelKey.id,
      });
      expect((await ask({ agent_id: agent.id, query: QUESTION })).status).toBe(200);
      const today = clock.now().toISOString().slice(0, 10);
      const analytics = json(
        await api(
          service.url,
          `/api/v1/analytics?start_date=${today}&end_date=${today}&agent_id=${agent.id}`,
          {
            key: service.adminKey,
          },
        ),
      );
      // gpt-4o-mini-2024-07-18 at $0.15/$0.60 per million: 412 in, 27 out.
      expect(analytics.metrics.model_key_cost_usd).toBeCloseTo((412 * 0.15 + 27 * 0.6) / 1e6, 9);
      expect(analytics.metrics.model_key_queries).toBe(1);
      expect(analytics.metrics.total_cost_usd).toBe(0);
    });

    it.each([
      ['revoked', 424, 'model_provider_refused'],
      ['bad_request', 400, 'invalid_request'],
      ['rate_limited', 429, 'rate_limit_exceeded'],
      ['down', 503, 'service_unavailable'],
    ] as const)(
      'maps a provider that answers %s to %d, never 500 (P134)',
      async (mode, status, code) => {
        for (const [provider, model, key] of [
          ['openai', 'gpt-4o-mini', OPENAI_KEY],
          ['anthropic', 'claude-sonnet-5-5', ANTHROPIC_KEY],
        ] as const) {
          providers.mode = 'ok';
          const modelKey = await registered({ provider, key });
          const agent = await createAgent(service, service.adminKey, {
            name: `${provider} ${mode}`,
            data_source_ids: [sourceId],
            model,
            model_key_id: modelKey.id,
          });
          providers.mode = mode;
          const response = await ask({ agent_id: agent.id, query: QUESTION });
          if (response.status !== status) throw new Error(`${mode} ${provider}: ${response.text}`);
          const error = expectNestedError(response, status, code);
          expect(error.message).not.toContain(key);
          if (mode === 'rate_limited') expect(response.headers.get('retry-after')).toBe('7');
          if (mode === 'revoked')
            expect(error.message).toMatch(/invalid x-api-key|Incorrect API key/);
          // Streamed: the same failure as the stream's error event.
          const streamed = await ask({ agent_id: agent.id, query: QUESTION, stream: true });
          const last = parseEventStream(streamed.text).at(-1);
          expect(last?.event).toBe('error');
          expect(last?.data.error.code).toBe(code);
        }
      },
    );

    it('reports a stream the provider breaks off as 503 in the stream', async () => {
      for (const [provider, model, key] of [
        ['openai', 'gpt-4o-mini', OPENAI_KEY],
        ['anthropic', 'claude-sonnet-5-5', ANTHROPIC_KEY],
      ] as const) {
        const modelKey = await registered({ provider, key });
        const agent = await createAgent(service, service.adminKey, {
          name: `${provider} broken`,
          data_source_ids: [sourceId],
          model,
          model_key_id: modelKey.id,
        });
        providers.mode = 'broken_stream';
        const streamed = await ask({ agent_id: agent.id, query: QUESTION, stream: true });
        const events = parseEventStream(streamed.text);
        expect(events.some((event) => event.event === 'delta')).toBe(true);
        expect(events.at(-1)?.data.error.code).toBe('service_unavailable');
        providers.mode = 'ok';
      }
    });
  });

  describe('sealed keys stay in their row (D33 encryption context)', () => {
    const moveSealedKey = async (
      from: { orgId: string; id: string },
      to: { orgId: string; id: string },
    ) => {
      const source = await service.runtime.dependencies.modelKeys.getSealed(from.orgId, from.id);
      await service.runtime.client.send(
        new UpdateCommand({
          TableName: 'svc',
          Key: { PK: keys.orgPartition(to.orgId), SK: `${keys.modelKeyPrefix}${to.id}` },
          UpdateExpression: 'SET sealed_key = :sealed',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':sealed': source?.sealedKey },
        }),
      );
    };

    it('refuses a ciphertext moved to another row or organization, and never sends it', async () => {
      const victim = await registered({ provider: 'openai', key: OPENAI_KEY });
      const target = await registered({
        provider: 'custom',
        key: CUSTOM_KEY,
        endpoint: providers.customUrl,
      });
      const agent = await createAgent(service, service.adminKey, {
        name: 'Swapped',
        data_source_ids: [sourceId],
        model: 'gpt-4o-mini',
        model_key_id: target.id,
      });
      // Another organization's key, registered through its own admin key.
      const other = await createTenant(service);
      const foreign = json(
        await api(service.url, '/api/v1/model-keys', {
          method: 'POST',
          key: other.key,
          body: {
            provider: 'custom',
            key: 'foreign-org-key-0000000000000000',
            endpoint: providers.customUrl,
          },
        }),
      );

      for (const from of [
        { orgId: service.orgId, id: victim.id },
        { orgId: other.orgId, id: foreign.id },
      ]) {
        await moveSealedKey(from, { orgId: service.orgId, id: target.id });
        const before = providers.requests.length;
        const response = await ask({ agent_id: agent.id, query: QUESTION });
        const error = expectNestedError(response, 424, 'model_provider_refused');
        expect(error.details.reason).toBe('model_key_unreadable');
        expect(providers.requests.length).toBe(before);
      }
      // And the other way: this organization's sealed key in the other's row.
      await moveSealedKey(
        { orgId: service.orgId, id: victim.id },
        { orgId: other.orgId, id: foreign.id },
      );
      const opened = service.runtime.dependencies.secretSealer.open(
        (await service.runtime.dependencies.modelKeys.getSealed(other.orgId, foreign.id))
          ?.sealedKey ?? '',
        { org_id: other.orgId, secret_id: foreign.id, purpose: 'model-key' },
      );
      await expect(opened).rejects.toThrow(/encryption context/);
    });
  });

  describe('the agents of a key (P282)', () => {
    it('lists each key with the agents that answer with it, by name, and no others', async () => {
      const used = await registered({ provider: 'openai', key: OPENAI_KEY });
      const unused = await registered({ provider: 'anthropic', key: ANTHROPIC_KEY });
      const billing = await createAgent(service, service.adminKey, {
        name: 'Billing bot',
        data_source_ids: [sourceId],
        model: 'gpt-4o-mini',
        model_key_id: used.id,
      });
      const returns = await createAgent(service, service.adminKey, {
        name: 'Returns helper',
        data_source_ids: [sourceId],
        model: 'gpt-4o-mini',
        model_key_id: used.id,
      });
      // On the service's model: not a user of any key.
      await createAgent(service, service.adminKey, {
        name: 'Plain',
        data_source_ids: [sourceId],
      });

      const list = json(
        await api(service.url, '/api/v1/model-keys?limit=100', {
          key: service.adminKey,
        }),
      ).model_keys as Array<{ id: string; agents: unknown }>;
      const got = json(
        await api(service.url, `/api/v1/model-keys/${used.id}`, { key: service.adminKey }),
      );

      const expected = [
        { id: billing.id, name: 'Billing bot' },
        { id: returns.id, name: 'Returns helper' },
      ];
      expect(list.find((key) => key.id === used.id)?.agents).toEqual(expected);
      expect(list.find((key) => key.id === unused.id)?.agents).toEqual([]);
      expect(got.agents).toEqual(expected);

      // A refused delete names them (P135 ids, P282 names).
      const refused = await api(service.url, `/api/v1/model-keys/${used.id}`, {
        method: 'DELETE',
        key: service.adminKey,
      });
      const error = expectNestedError(refused, 409, 'invalid_request');
      expect(error.details.agents).toEqual(expected);
      expect(error.details.agent_ids).toEqual([billing.id, returns.id]);
      expect(error.message).toContain('Billing bot and Returns helper');
    });
  });

  describe('deleting (P135)', () => {
    it('refuses to delete a key agents use, naming them, and deletes it once detached', async () => {
      const modelKey = await registered({ provider: 'openai', key: OPENAI_KEY });
      const agent = await createAgent(service, service.adminKey, {
        name: 'Attached',
        data_source_ids: [sourceId],
        model: 'gpt-4o-mini',
        model_key_id: modelKey.id,
      });
      const path = `/api/v1/model-keys/${modelKey.id}`;

      const refused = await api(service.url, path, { method: 'DELETE', key: service.adminKey });
      expect(expectNestedError(refused, 409, 'invalid_request').details.agent_ids).toEqual([
        agent.id,
      ]);

      const detached = await api(service.url, `/api/v1/agents/${agent.id}`, {
        method: 'PUT',
        key: service.adminKey,
        body: { model_key_id: null, model: 'offline-extractive' },
      });
      expect(json(detached).model_key_id).toBeNull();
      expect(
        (await api(service.url, path, { method: 'DELETE', key: service.adminKey })).status,
      ).toBe(204);
      expectNestedError(await api(service.url, path, { key: service.adminKey }), 404, 'not_found');
      // The agent answers with the service's model again.
      const answer = json(await ask({ agent_id: agent.id, query: QUESTION }));
      expect(answer.metadata).toMatchObject({ billed_to: 'service', model_key_id: null });
    });
  });

  it('never writes a key to the logs (captured and scanned)', () => {
    const everything = captured.join('');
    expect(everything.length).toBeGreaterThan(0);
    for (const secret of SECRETS) expect(everything).not.toContain(secret);
    // Nor their distinctive middles (a masked echo such as sk-abc***wxyz would still show these).
    for (const secret of SECRETS) expect(everything).not.toContain(secret.slice(8, 30));
  });
});
