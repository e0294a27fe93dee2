// Must come first: sets the loggers' level before any function module builds its logger.
import '../support/log-everything';
import { expectNestedError, fieldPaths } from '../support/error-shapes';
import { createAgent } from '../support/fixtures';
import { api, json } from '../support/http-client';
import { createKey, createTenant } from '../support/tenants';
import { createTestUser, signedIn } from '../support/web-session';
import {
  ANTHROPIC_KEY,
  CUSTOM_KEY,
  modelKeysSuite,
  OPENAI_KEY,
  QUESTION,
} from './model-keys-suite';

describe('Model keys (D33)', () => {
  const { itNeverLogsAKey, register, registered, ask, service, site, providers, sourceId } =
    modelKeysSuite();

  describe('registering', () => {
    it('checks the key with one call, stores it sealed and shows only last4', async () => {
      const before = providers().requests.length;
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
      const calls = providers().requests.slice(before);
      expect(calls.map((call) => `${call.method} ${call.path}`)).toEqual(['GET /openai/v1/models']);
      expect(calls[0]?.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
      // At rest: the Encryption SDK's message, not the key.
      const stored = await service().runtime.dependencies.modelKeys.getSealed(
        service().orgId,
        created.id,
      );
      expect(stored?.sealedKey).toBeDefined();
      expect(stored?.sealedKey).not.toContain(OPENAI_KEY);
      expect(Buffer.from(stored?.sealedKey ?? '', 'base64').toString('latin1')).not.toContain(
        OPENAI_KEY,
      );
      // Never returned again.
      const got = await api(service().url, `/api/v1/model-keys/${created.id}`, {
        key: service().adminKey,
      });
      const list = await api(service().url, '/api/v1/model-keys', { key: service().adminKey });
      expect(json(got)).toEqual(created);
      expect(json(list).model_keys).toContainEqual(created);
      for (const response of [got, list]) expect(response.text).not.toContain(OPENAI_KEY);
    });

    it('checks an Anthropic key with its Models API (x-api-key, anthropic-version)', async () => {
      const before = providers().requests.length;
      const created = await registered({ provider: 'anthropic', key: ANTHROPIC_KEY });

      expect(created).toMatchObject({
        provider: 'anthropic',
        endpoint: null,
        last4: ANTHROPIC_KEY.slice(-4),
      });
      const [call] = providers().requests.slice(before);
      expect(call?.path).toBe('/anthropic/v1/models?limit=1');
      expect(call?.headers['x-api-key']).toBe(ANTHROPIC_KEY);
      expect(call?.headers['anthropic-version']).toBe('2023-06-01');
    });

    it('refuses a key the provider refuses with 400 and the provider reason, storing nothing', async () => {
      providers().mode = 'revoked';
      const before = json(
        await api(service().url, '/api/v1/model-keys', { key: service().adminKey }),
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
        await api(service().url, '/api/v1/model-keys', { key: service().adminKey }),
      ).total;
      expect(after).toBe(before);
    });

    it('answers 429 with Retry-After when the provider rate limits the check, 503 when it is down', async () => {
      providers().mode = 'rate_limited';
      const limited = await register({ provider: 'openai', key: OPENAI_KEY });
      expect(expectNestedError(limited, 429, 'rate_limit_exceeded').details.reason).toBe(
        'model_provider',
      );
      expect(limited.headers.get('retry-after')).toBe('7');

      providers().mode = 'down';
      const down = await register({ provider: 'anthropic', key: ANTHROPIC_KEY });
      expectNestedError(down, 503, 'service_unavailable');
      expect(down.headers.get('retry-after')).toMatch(/^\d+$/);
    });

    it('takes an endpoint for custom only, and checks it (D35 allows loopback here only by SVC_ALLOW_PRIVATE_URLS)', async () => {
      const custom = await registered({
        provider: 'custom',
        key: CUSTOM_KEY,
        endpoint: providers().customUrl,
      });
      expect(custom.endpoint).toBe(providers().customUrl);

      const missing = expectNestedError(
        await register({ provider: 'custom', key: CUSTOM_KEY }),
        400,
        'invalid_request',
      );
      expect(fieldPaths(missing)).toEqual(['endpoint']);
      const extra = await register({
        provider: 'openai',
        key: OPENAI_KEY,
        endpoint: providers().customUrl,
      });
      expect(fieldPaths(expectNestedError(extra, 400, 'invalid_request'))).toEqual(['endpoint']);
      // Not an OpenAI-compatible endpoint: GET /models is a 404 there.
      const wrong = await register({
        provider: 'custom',
        key: CUSTOM_KEY,
        endpoint: site().url('/'),
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
      const writer = await createKey(service(), service().orgId, {
        scopes: ['Read', 'Write', 'Execute'],
      });
      for (const [method, path] of [
        ['GET', '/api/v1/model-keys'],
        ['POST', '/api/v1/model-keys'],
      ] as const) {
        const response = await api(service().url, path, {
          method,
          key: writer.key,
          ...(method === 'POST' ? { body: { provider: 'openai', key: OPENAI_KEY } } : {}),
        });
        expect(expectNestedError(response, 403, 'forbidden').details.required_scope).toBe('Admin');
      }
      const configure = await signedIn(
        service(),
        await createTestUser(service(), { role: 'configure' }),
      );
      const refused = await configure.request('/api/v1/model-keys');
      expect(expectNestedError(refused, 403, 'forbidden').details.required_role).toBe('admin');
      const admin = await signedIn(service(), await createTestUser(service(), { role: 'admin' }));
      const made = await admin.request('/api/v1/model-keys', {
        method: 'POST',
        body: { provider: 'openai', key: OPENAI_KEY },
      });
      expect(made.status).toBe(201);
      expect(made.text).not.toContain(OPENAI_KEY);
    });

    it("answers another organization's key as one that does not exist", async () => {
      const mine = await registered({ provider: 'openai', key: OPENAI_KEY });
      const other = await createTenant(service());
      for (const method of ['GET', 'DELETE'] as const) {
        const response = await api(service().url, `/api/v1/model-keys/${mine.id}`, {
          method,
          key: other.key,
        });
        expectNestedError(response, 404, 'not_found');
      }
      expect(json(await api(service().url, '/api/v1/model-keys', { key: other.key })).total).toBe(
        0,
      );
      // Nor can its agents name it.
      const agent = await api(service().url, '/api/v1/agents', {
        method: 'POST',
        key: other.key,
        body: { name: 'Thief', data_source_ids: [], model: 'gpt-4o-mini', model_key_id: mine.id },
      });
      expect(fieldPaths(expectNestedError(agent, 400, 'invalid_request'))).toEqual([
        'model_key_id',
      ]);
      // Malformed ids are 400 (D1).
      expectNestedError(
        await api(service().url, '/api/v1/model-keys/agt_1', { key: service().adminKey }),
        400,
        'invalid_request',
      );
    });
  });

  describe('deleting (P135)', () => {
    it('refuses to delete a key agents use, naming them, and deletes it once detached', async () => {
      const modelKey = await registered({ provider: 'openai', key: OPENAI_KEY });
      const agent = await createAgent(service(), service().adminKey, {
        name: 'Attached',
        data_source_ids: [sourceId()],
        model: 'gpt-4o-mini',
        model_key_id: modelKey.id,
      });
      const path = `/api/v1/model-keys/${modelKey.id}`;

      const refused = await api(service().url, path, { method: 'DELETE', key: service().adminKey });
      expect(expectNestedError(refused, 409, 'invalid_request').details.agent_ids).toEqual([
        agent.id,
      ]);

      const detached = await api(service().url, `/api/v1/agents/${agent.id}`, {
        method: 'PUT',
        key: service().adminKey,
        body: { model_key_id: null, model: 'offline-extractive' },
      });
      expect(json(detached).model_key_id).toBeNull();
      expect(
        (await api(service().url, path, { method: 'DELETE', key: service().adminKey })).status,
      ).toBe(204);
      expectNestedError(
        await api(service().url, path, { key: service().adminKey }),
        404,
        'not_found',
      );
      // The agent answers with the service's model again.
      const answer = json(await ask({ agent_id: agent.id, query: QUESTION }));
      expect(answer.metadata).toMatchObject({ billed_to: 'service', model_key_id: null });
    });
  });

  itNeverLogsAKey();
});
