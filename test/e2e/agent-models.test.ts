import { expectNestedError, fieldPaths } from '../support/error-shapes';
import { createAgent } from '../support/fixtures';
import { api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { type ModelProviders, startModelProviders } from '../support/model-providers';
import { createKey, createTenant } from '../support/tenants';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';

const OPENAI_KEY = 'sk-proj-e2eAgentModels000000000000000000000000001';

/**
 * An agent's model is chosen from what the deployment and the organization's
 * model keys can serve (`GET /api/v1/models`), and a model nothing can serve
 * is refused when the agent is saved, not at every question after.
 */
describe('Agent models', () => {
  describe('on an offline deployment', () => {
    const clock = new TestClock();
    let service: TestService;
    let providers: ModelProviders;

    beforeAll(async () => {
      providers = await startModelProviders();
      service = await startTestService({
        clock,
        env: { SVC_ALLOW_PRIVATE_URLS: 'true', SVC_MODEL_KEY_OPENAI_URL: providers.openaiUrl },
      });
    });
    afterAll(async () => {
      await service.end();
      await providers.close();
    });
    beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

    const call = (path: string, method = 'GET', body?: unknown, key = service.adminKey) =>
      api(service.url, path, { method, key, ...(body !== undefined ? { body } : {}) });

    it('lists only the offline model when the organization has no model key', async () => {
      const response = await call('/api/v1/models');

      expect(response.status).toBe(200);
      expect(json(response)).toEqual({
        choices: [
          {
            model_key_id: null,
            label: expect.stringMatching(/offline/),
            provider: 'offline',
            models: ['offline-extractive'],
            other_models: false,
          },
        ],
      });
    });

    it('refuses to create an agent with a model the deployment cannot serve (400 on model)', async () => {
      const response = await call('/api/v1/agents', 'POST', {
        name: 'Typo',
        data_source_ids: [],
        model: 'gpt-4o-mnii',
      });

      const error = expectNestedError(response, 400, 'invalid_request');
      expect(fieldPaths(error)).toEqual(['model']);
      expect(error.message).toMatch(/gpt-4o-mnii/);
      expect(error.message).toMatch(/offline-extractive/);
      // Words for the person saving the agent, not the operator's settings.
      expect(error.message).not.toMatch(/OPENAI_API_KEY|SVC_MODEL_PROVIDER/);
    });

    it('refuses to change an agent to such a model, and keeps the agent as it was', async () => {
      const agent = await createAgent(service, service.adminKey, {
        name: 'Offline',
        data_source_ids: [],
      });

      const response = await call(`/api/v1/agents/${agent.id}`, 'PUT', { model: 'claude-opus' });
      const after = json(await call(`/api/v1/agents/${agent.id}`));

      expect(fieldPaths(expectNestedError(response, 400, 'invalid_request'))).toEqual(['model']);
      expect(after.model).toBe('offline-extractive');
    });

    it('lists the organization’s model keys and accepts their models, only for their own organization', async () => {
      const created = await call('/api/v1/model-keys', 'POST', {
        provider: 'openai',
        key: OPENAI_KEY,
        name: 'Team OpenAI',
      });
      expect(created.status).toBe(201);
      const modelKey = json(created);
      const other = await createTenant(service);

      const mine = json(await call('/api/v1/models'));
      const theirs = json(await call('/api/v1/models', 'GET', undefined, other.key));
      const agent = await call('/api/v1/agents', 'POST', {
        name: 'Keyed',
        data_source_ids: [],
        model: 'gpt-4o-mini',
        model_key_id: modelKey.id,
      });

      expect(mine.choices).toHaveLength(2);
      expect(mine.choices[1]).toEqual({
        model_key_id: modelKey.id,
        label: 'Team OpenAI',
        provider: 'openai',
        models: expect.arrayContaining(['gpt-4o-mini']),
        other_models: true,
      });
      expect(JSON.stringify(mine)).not.toContain(OPENAI_KEY.slice(-4));
      expect(theirs.choices.map((choice: { provider: string }) => choice.provider)).toEqual([
        'offline',
      ]);
      expect(agent.status).toBe(201);
    });

    it('is readable with the Read scope, as agents are', async () => {
      const read = await createKey(service, service.orgId, { scopes: ['Read'] });
      const none = await createKey(service, service.orgId, { scopes: ['Execute'] });

      expect((await call('/api/v1/models', 'GET', undefined, read.key)).status).toBe(200);
      expect(
        expectNestedError(
          await call('/api/v1/models', 'GET', undefined, none.key),
          403,
          'forbidden',
        ).details.required_scope,
      ).toBe('Read');
    });
  });

  describe('with the deployment’s own OpenAI key', () => {
    let service: TestService;

    beforeAll(async () => {
      // Nothing here calls the provider: saving an agent only checks the name's shape.
      service = await startTestService({ env: { OPENAI_API_KEY: OPENAI_KEY } });
    });
    afterAll(() => service.end());

    it('offers the offline model and OpenAI’s, and accepts another name OpenAI may have', async () => {
      const models = json(await api(service.url, '/api/v1/models', { key: service.adminKey }));
      const agent = await createAgent(service, service.adminKey, {
        name: 'Hosted',
        data_source_ids: [],
        model: 'gpt-9-preview',
      });

      expect(models.choices).toEqual([
        {
          model_key_id: null,
          label: expect.stringMatching(/OpenAI/),
          provider: 'openai',
          models: expect.arrayContaining(['offline-extractive', 'gpt-4o-mini']),
          other_models: true,
        },
      ]);
      expect(models.choices[0].models[0]).toBe('offline-extractive');
      expect(agent.model).toBe('gpt-9-preview');
    });
  });
});
