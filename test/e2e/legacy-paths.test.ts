import { expectFlatError } from '../support/error-shapes';
import { createAgent, createDataSource } from '../support/fixtures';
import { type ApiResponse, api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';

/**
 * D7, D8: legacy paths answer the same resources as their v1 successors
 * (snake_case bodies), add `Deprecation: true` and a `successor-version`
 * link, and accept camelCase synonyms on input; both spellings at once is 400.
 */
describe('Legacy paths', () => {
  const clock = new TestClock();
  let service: TestService;
  let sourceId: string;

  beforeAll(async () => {
    service = await startTestService({ clock });
    sourceId = (await createDataSource(service, service.adminKey)).id;
  });
  afterAll(() => service.end());
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  const call = (path: string, method = 'GET', body?: unknown) =>
    api(service.url, path, {
      method,
      key: service.adminKey,
      ...(body !== undefined ? { body } : {}),
    });

  function expectDeprecated(response: ApiResponse, successor: string): void {
    expect(response.headers.get('deprecation')).toBe('true');
    expect(response.headers.get('link')).toBe(`<${successor}>; rel="successor-version"`);
  }

  describe('/api/ai-agent-managers (agents)', () => {
    it('lists the same agents as /api/v1/agents, marked deprecated', async () => {
      await createAgent(service, service.adminKey, { name: 'Listed', data_source_ids: [] });

      const legacy = await call('/api/ai-agent-managers');
      const v1 = await call('/api/v1/agents');

      expect(legacy.status).toBe(200);
      expect(json(legacy)).toEqual(json(v1));
      expectDeprecated(legacy, '/api/v1/agents');
      expect(v1.headers.get('deprecation')).toBeNull();
      expect(v1.headers.get('link')).toBeNull();
    });

    it('creates an agent from camelCase fields and answers in snake_case', async () => {
      const response = await call('/api/ai-agent-managers', 'POST', {
        name: 'Camel',
        dataSourceIds: [sourceId],
        systemPrompt: 'Be brief.',
        maxTokens: 256,
        ragStrategy: 'mmr',
      });

      expect(response.status).toBe(201);
      expectDeprecated(response, '/api/v1/agents');
      const agent = json(response);
      expect(agent).toMatchObject({
        name: 'Camel',
        data_source_ids: [sourceId],
        system_prompt: 'Be brief.',
        max_tokens: 256,
        rag_strategy: 'mmr',
      });
      expect(agent).not.toHaveProperty('dataSourceIds');
      expect(json(await call(`/api/v1/agents/${agent.id}`))).toEqual(agent);
    });

    it('accepts snake_case too', async () => {
      const response = await call('/api/ai-agent-managers', 'POST', {
        name: 'Snake',
        data_source_ids: [],
        max_tokens: 100,
      });

      expect(response.status).toBe(201);
      expect(json(response).max_tokens).toBe(100);
    });

    it('gets, updates and deletes one agent, linking to its v1 successor', async () => {
      const agent = await createAgent(service, service.adminKey, {
        name: 'Legacy',
        data_source_ids: [],
      });
      const successor = `/api/v1/agents/${agent.id}`;

      const got = await call(`/api/ai-agent-managers/${agent.id}`);
      const updated = await call(`/api/ai-agent-managers/${agent.id}`, 'PUT', {
        maxTokens: 99,
        dataSourceIds: [sourceId],
      });
      const deleted = await call(`/api/ai-agent-managers/${agent.id}`, 'DELETE');

      expect(got.status).toBe(200);
      expect(json(got)).toEqual(agent);
      expectDeprecated(got, successor);
      expect(updated.status).toBe(200);
      expect(json(updated)).toMatchObject({ max_tokens: 99, data_source_ids: [sourceId] });
      expectDeprecated(updated, successor);
      expect(deleted.status).toBe(204);
      expectDeprecated(deleted, successor);
      expect((await call(successor)).status).toBe(404);
    });

    it.each([
      ['max_tokens and maxTokens', { max_tokens: 1, maxTokens: 2 }],
      ['data_source_ids and dataSourceIds', { data_source_ids: [], dataSourceIds: [] }],
      ['system_prompt and systemPrompt', { system_prompt: 'a', systemPrompt: 'a' }],
    ])('refuses both spellings at once (%s) with a flat 400', async (_name, fields) => {
      const response = await call('/api/ai-agent-managers', 'POST', {
        name: 'Ambiguous',
        data_source_ids: [],
        ...fields,
      });

      const body = expectFlatError(response, 400);
      expect(body).toMatchObject({ status: 400, code: 'invalid_request' });
      expect(body.error).toMatch(/twice/);
    });

    it('still refuses unknown fields after translating camelCase', async () => {
      const response = await call('/api/ai-agent-managers', 'POST', {
        name: 'x',
        dataSourceIds: [],
        favouriteColour: 'red',
      });

      expect(expectFlatError(response, 400).details.unknown_fields).toEqual(['favourite_colour']);
    });

    it('answers an unknown agent with a flat 404', async () => {
      const response = await call('/api/ai-agent-managers/agt_01jf3z8k7q2m4n6p8r0s2t4v6w');

      expect(expectFlatError(response, 404)).toMatchObject({ status: 404, code: 'not_found' });
      expect(response.headers.get('deprecation')).toBe('true');
    });
  });

  describe('/api/data-specs (data sources)', () => {
    it('lists the same data sources as /api/v1/data-sources', async () => {
      const legacy = await call('/api/data-specs');
      const v1 = await call('/api/v1/data-sources');

      expect(legacy.status).toBe(200);
      expect(json(legacy)).toEqual(json(v1));
      expectDeprecated(legacy, '/api/v1/data-sources');
    });

    it('creates a data source from camelCase fields, inside config too', async () => {
      const response = await call('/api/data-specs', 'POST', {
        type: 'website',
        name: 'Camel site',
        syncFrequency: 'weekly',
        config: { url: 'https://camel.example.com', maxPages: 10 },
      });

      expect(response.status).toBe(201);
      expectDeprecated(response, '/api/v1/data-sources');
      const source = json(response);
      expect(source).toMatchObject({
        sync_frequency: 'weekly',
        config: { url: 'https://camel.example.com', max_pages: 10 },
        status: 'pending',
      });
      expect(json(await call(`/api/v1/data-sources/${source.id}`))).toEqual(source);
    });

    it('refuses both spellings inside config', async () => {
      const response = await call('/api/data-specs', 'POST', {
        type: 'website',
        name: 'Ambiguous',
        config: { url: 'https://x.example.com', max_pages: 1, maxPages: 2 },
      });

      expect(expectFlatError(response, 400).error).toMatch(/max_pages/);
    });

    it('queues a sync on /process like /sync, returning the running job (D8, D22)', async () => {
      const source = await createDataSource(service, service.adminKey);

      const legacy = await call(`/api/data-specs/${source.id}/process`, 'POST');
      const v1 = await call(`/api/v1/data-sources/${source.id}/sync`, 'POST');

      expect(legacy.status).toBe(202);
      expectDeprecated(legacy, `/api/v1/data-sources/${source.id}/sync`);
      expect(json(legacy).created).toBe(true);
      expect(json(v1)).toMatchObject({ created: false, job: { id: json(legacy).job.id } });
    });

    it('answers /process of an unknown data source with a flat 404', async () => {
      const response = await call('/api/data-specs/ds_01jf3z8k7q2m4n6p8r0s2t4v6w/process', 'POST');

      expect(expectFlatError(response, 404)).toMatchObject({ status: 404, code: 'not_found' });
    });
  });
});
