import { expectNestedError } from '../support/error-shapes';
import { createAgent, createDataSource } from '../support/fixtures';
import { api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { createTenant } from '../support/tenants';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';

/** D3: ISO 8601 UTC with milliseconds. */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('Agents API', () => {
  const clock = new TestClock();
  let service: TestService;
  let sources: string[];

  beforeAll(async () => {
    service = await startTestService({ clock });
    sources = [
      (await createDataSource(service, service.adminKey)).id,
      (await createDataSource(service, service.adminKey)).id,
    ];
  });
  afterAll(() => service.end());
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  const call = (path: string, method = 'GET', body?: unknown, key = service.adminKey) =>
    api(service.url, path, { method, key, ...(body !== undefined ? { body } : {}) });

  it('creates an agent with defaults (201): hybrid, offline-extractive, active', async () => {
    const response = await call('/api/v1/agents', 'POST', {
      name: 'Support',
      data_source_ids: [sources[0]],
    });

    expect(response.status).toBe(201);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const agent = json(response);
    expect(agent).toEqual({
      id: expect.stringMatching(/^agt_[0-9a-hjkmnp-tv-z]{26}$/),
      name: 'Support',
      system_prompt: null,
      rag_strategy: 'hybrid',
      model: 'offline-extractive',
      temperature: expect.any(Number),
      max_tokens: expect.any(Number),
      data_source_ids: [sources[0]],
      model_key_id: null,
      status: 'active',
      created_at: expect.stringMatching(TIMESTAMP),
      updated_at: agent.created_at,
    });
    expect(agent.temperature).toBeGreaterThanOrEqual(0);
    expect(agent.temperature).toBeLessThanOrEqual(2);
    expect(Number.isInteger(agent.max_tokens)).toBe(true);
    expect(agent.max_tokens).toBeGreaterThan(0);
  });

  it('stores every field it is given and returns it on GET', async () => {
    const input = {
      name: 'Tuned',
      data_source_ids: sources,
      system_prompt: 'Answer briefly; cite sources.',
      rag_strategy: 'rerank',
      // The only model an offline deployment serves (agent-models.test.ts covers the others).
      model: 'offline-extractive',
      temperature: 1.25,
      max_tokens: 512,
      status: 'disabled',
    };

    const created = await createAgent(service, service.adminKey, input);
    const fetched = await call(`/api/v1/agents/${created.id}`);

    expect(created).toMatchObject(input);
    expect(fetched.status).toBe(200);
    expect(json(fetched)).toEqual(created);
  });

  it('trims the name', async () => {
    const agent = await createAgent(service, service.adminKey, {
      name: '  Padded  ',
      data_source_ids: [],
    });

    expect(agent.name).toBe('Padded');
  });

  it('lists agents newest first', async () => {
    const older = await createAgent(service, service.adminKey, {
      name: 'older',
      data_source_ids: [],
    });
    clock.advance(1_000);
    const newer = await createAgent(service, service.adminKey, {
      name: 'newer',
      data_source_ids: [],
    });

    const response = await call('/api/v1/agents');

    expect(response.status).toBe(200);
    const list = json(response);
    expect(list).toMatchObject({ limit: 50, offset: 0 });
    expect(list.total).toBe(list.agents.length);
    const ids = list.agents.map((agent: { id: string }) => agent.id);
    expect(ids.indexOf(newer.id)).toBeLessThan(ids.indexOf(older.id));
    expect(list.agents.find((agent: { id: string }) => agent.id === newer.id)).toEqual(newer);
  });

  describe('PUT (partial update)', () => {
    let agent: Record<string, any>;
    beforeEach(async () => {
      agent = await createAgent(service, service.adminKey, {
        name: 'Before',
        data_source_ids: [sources[0]],
        system_prompt: 'Be nice.',
        temperature: 0.5,
      });
      clock.advance(1_000);
    });

    it('changes only the fields given and moves updated_at', async () => {
      const response = await call(`/api/v1/agents/${agent.id}`, 'PUT', { name: 'After' });

      expect(response.status).toBe(200);
      const updated = json(response);
      expect(updated).toEqual({
        ...agent,
        name: 'After',
        updated_at: expect.stringMatching(TIMESTAMP),
      });
      expect(Date.parse(updated.updated_at)).toBeGreaterThan(Date.parse(agent.created_at));
      expect(json(await call(`/api/v1/agents/${agent.id}`))).toEqual(updated);
    });

    it('replaces data_source_ids, clears system_prompt with null and keeps the rest', async () => {
      const response = await call(`/api/v1/agents/${agent.id}`, 'PUT', {
        data_source_ids: [sources[1], sources[0]],
        system_prompt: null,
        max_tokens: 64,
      });

      expect(response.status).toBe(200);
      expect(json(response)).toMatchObject({
        name: 'Before',
        temperature: 0.5,
        data_source_ids: [sources[1], sources[0]],
        system_prompt: null,
        max_tokens: 64,
        created_at: agent.created_at,
      });
    });

    it('accepts an empty update as a no-op on the fields', async () => {
      const response = await call(`/api/v1/agents/${agent.id}`, 'PUT', {});

      expect(response.status).toBe(200);
      expect(json(response)).toEqual({ ...agent, updated_at: expect.any(String) });
    });

    it('can disable and re-enable an agent (D20)', async () => {
      const disabled = await call(`/api/v1/agents/${agent.id}`, 'PUT', { status: 'disabled' });
      const enabled = await call(`/api/v1/agents/${agent.id}`, 'PUT', { status: 'active' });

      expect(json(disabled).status).toBe('disabled');
      expect(json(enabled).status).toBe('active');
    });
  });

  it('deletes an agent (204, no body), after which it is 404 everywhere', async () => {
    const agent = await createAgent(service, service.adminKey, {
      name: 'Doomed',
      data_source_ids: [],
    });

    const deleted = await call(`/api/v1/agents/${agent.id}`, 'DELETE');

    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expectNestedError(await call(`/api/v1/agents/${agent.id}`), 404, 'not_found');
    expectNestedError(
      await call(`/api/v1/agents/${agent.id}`, 'PUT', { name: 'x' }),
      404,
      'not_found',
    );
    expectNestedError(await call(`/api/v1/agents/${agent.id}`, 'DELETE'), 404, 'not_found');
    const ids = json(await call('/api/v1/agents?limit=200')).agents.map(
      (a: { id: string }) => a.id,
    );
    expect(ids).not.toContain(agent.id);
  });

  it('pages through 7 agents 3 at a time with correct total, limit and offset (D2)', async () => {
    const tenant = await createTenant(service);
    const created: string[] = [];
    for (let i = 0; i < 7; i += 1) {
      created.push(
        (await createAgent(service, tenant.key, { name: `a${i}`, data_source_ids: [] })).id,
      );
      clock.advance(10);
    }

    const pages = [];
    for (const offset of [0, 3, 6, 9]) {
      const response = await call(
        `/api/v1/agents?limit=3&offset=${offset}`,
        'GET',
        undefined,
        tenant.key,
      );
      expect(response.status).toBe(200);
      pages.push(json(response));
    }

    expect(pages.map((page) => [page.total, page.limit, page.offset, page.agents.length])).toEqual([
      [7, 3, 0, 3],
      [7, 3, 3, 3],
      [7, 3, 6, 1],
      [7, 3, 9, 0],
    ]);
    const seen = pages.flatMap((page) => page.agents.map((agent: { id: string }) => agent.id));
    expect(seen).toEqual([...created].reverse());
  });

  describe('?q= (P244: the name contains it, ignoring case)', () => {
    let tenant: Awaited<ReturnType<typeof createTenant>>;
    const names = ['Billing help', 'Returns desk', 'BILLING disputes', 'Straße info'];
    const list = (query: string) => call(`/api/v1/agents?${query}`, 'GET', undefined, tenant.key);

    beforeAll(async () => {
      tenant = await createTenant(service);
      for (const name of names) {
        await createAgent(service, tenant.key, { name, data_source_ids: [] });
        clock.advance(10);
      }
    });

    it('keeps only the agents whose name contains the text, newest first, and counts them', async () => {
      const response = await list('q=billing');

      expect(response.status).toBe(200);
      const page = json(response);
      expect(page.agents.map((agent: { name: string }) => agent.name)).toEqual([
        'BILLING disputes',
        'Billing help',
      ]);
      expect(page.total).toBe(2);
    });

    it('pages the filtered list, and trims the text', async () => {
      const page = json(await list('q=%20%20billing%20&limit=1&offset=1'));

      expect(page).toMatchObject({ total: 2, limit: 1, offset: 1 });
      expect(page.agents.map((agent: { name: string }) => agent.name)).toEqual(['Billing help']);
    });

    it('matches text written in another Unicode form, and finds nothing for text no name has', async () => {
      expect(json(await list(`q=${encodeURIComponent('ＳＴＲＡßＥ')}`)).agents).toEqual([
        expect.objectContaining({ name: 'Straße info' }),
      ]);
      expect(json(await list('q=zeppelin'))).toEqual({
        agents: [],
        total: 0,
        limit: 50,
        offset: 0,
      });
    });

    it('answers an empty or over-long q, or a repeated one, with 400 (P2)', async () => {
      expectNestedError(await list('q='), 400, 'invalid_request');
      expectNestedError(await list('q=%20%20'), 400, 'invalid_request');
      expectNestedError(await list(`q=${'a'.repeat(201)}`), 400, 'invalid_request');
      expectNestedError(await list('q=a&q=b'), 400, 'invalid_request');
    });
  });

  it('uses limit 50 and offset 0 by default', async () => {
    const tenant = await createTenant(service);

    const response = await call('/api/v1/agents', 'GET', undefined, tenant.key);

    expect(json(response)).toEqual({ agents: [], total: 0, limit: 50, offset: 0 });
  });
});
