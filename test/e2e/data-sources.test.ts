import { expectNestedError } from '../support/error-shapes';
import { createAgent, createDataSource, websiteSource } from '../support/fixtures';
import { api, json } from '../support/http-client';
import { unknownId } from '../support/ids';
import { startTestService, type TestService } from '../support/local-service';
import { createTenant } from '../support/tenants';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('Data sources API', () => {
  const clock = new TestClock();
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService({ clock });
  });
  afterAll(() => service.end());
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  const call = (path: string, method = 'GET', body?: unknown, key = service.adminKey) =>
    api(service.url, path, { method, key, ...(body !== undefined ? { body } : {}) });

  it('creates a website data source, pending, with defaults (201)', async () => {
    const response = await call('/api/v1/data-sources', 'POST', {
      type: 'website',
      name: 'Help centre',
      config: { url: 'https://help.example.com' },
    });

    expect(response.status).toBe(201);
    const source = json(response);
    expect(source).toEqual({
      id: expect.stringMatching(/^ds_[0-9a-hjkmnp-tv-z]{26}$/),
      type: 'website',
      name: 'Help centre',
      config: { url: 'https://help.example.com', max_pages: 100 },
      sync_frequency: 'manual',
      next_sync_at: null,
      status: 'pending',
      chunks_indexed: 0,
      created_at: expect.stringMatching(TIMESTAMP),
      updated_at: source.created_at,
      current_job: null,
      last_job: null,
    });
    expect(json(await call(`/api/v1/data-sources/${source.id}`))).toEqual(source);
  });

  it('creates a file data source without config', async () => {
    const source = await createDataSource(service, service.adminKey, {
      type: 'file',
      name: 'Uploads',
      sync_frequency: 'weekly',
    });

    expect(source).toMatchObject({ type: 'file', config: {}, sync_frequency: 'weekly' });
    expect(source).not.toHaveProperty('connection_status');
  });

  it('updates name, sync_frequency and config, keeping the rest', async () => {
    const source = await createDataSource(service, service.adminKey);
    clock.advance(1_000);

    const response = await call(`/api/v1/data-sources/${source.id}`, 'PUT', {
      name: 'Renamed',
      sync_frequency: 'hourly',
      config: { url: 'https://new.example.com', max_pages: 7 },
    });

    expect(response.status).toBe(200);
    const updated = json(response);
    expect(updated).toEqual({
      ...source,
      name: 'Renamed',
      sync_frequency: 'hourly',
      // D23: a new frequency is counted from the change (P40).
      next_sync_at: new Date(Date.parse(updated.updated_at) + 3_600_000).toISOString(),
      config: { url: 'https://new.example.com', max_pages: 7 },
      updated_at: expect.stringMatching(TIMESTAMP),
    });
    expect(updated.updated_at).not.toBe(source.updated_at);
  });

  it('deletes a data source (204), after which it is 404', async () => {
    const source = await createDataSource(service, service.adminKey);

    const deleted = await call(`/api/v1/data-sources/${source.id}`, 'DELETE');

    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    for (const [method, suffix] of [
      ['GET', ''],
      ['PUT', ''],
      ['DELETE', ''],
      ['POST', '/sync'],
      ['GET', '/status'],
    ] as const) {
      const response = await call(
        `/api/v1/data-sources/${source.id}${suffix}`,
        method,
        method === 'PUT' ? { name: 'x' } : undefined,
      );
      expectNestedError(response, 404, 'not_found');
    }
  });

  it('refuses to delete a data source an agent uses (409), until the agent lets go', async () => {
    const source = await createDataSource(service, service.adminKey);
    const agent = await createAgent(service, service.adminKey, {
      name: 'User',
      data_source_ids: [source.id],
    });

    const refused = await call(`/api/v1/data-sources/${source.id}`, 'DELETE');

    const error = expectNestedError(refused, 409, 'invalid_request');
    expect(error.details.agent_ids).toEqual([agent.id]);
    expect((await call(`/api/v1/data-sources/${source.id}`)).status).toBe(200);

    await call(`/api/v1/agents/${agent.id}`, 'PUT', { data_source_ids: [] });
    const deleted = await call(`/api/v1/data-sources/${source.id}`, 'DELETE');
    expect(deleted.status).toBe(204);
  });

  describe('lists', () => {
    it('pages through 7 data sources 3 at a time with correct total, limit and offset', async () => {
      const tenant = await createTenant(service);
      const created: string[] = [];
      for (let i = 0; i < 7; i += 1) {
        created.push(
          (await createDataSource(service, tenant.key, websiteSource({ name: `s${i}` }))).id,
        );
        clock.advance(10);
      }

      const pages = [];
      for (const offset of [0, 3, 6, 7]) {
        const response = await call(
          `/api/v1/data-sources?limit=3&offset=${offset}`,
          'GET',
          undefined,
          tenant.key,
        );
        expect(response.status).toBe(200);
        pages.push(json(response));
      }

      expect(
        pages.map((page) => [page.total, page.limit, page.offset, page.data_sources.length]),
      ).toEqual([
        [7, 3, 0, 3],
        [7, 3, 3, 3],
        [7, 3, 6, 1],
        [7, 3, 7, 0],
      ]);
      const seen = pages.flatMap((page) => page.data_sources.map((s: { id: string }) => s.id));
      expect(seen).toEqual([...created].reverse());
    });

    it('filters by status, counting only matches in total', async () => {
      const tenant = await createTenant(service);
      for (let i = 0; i < 4; i += 1) await createDataSource(service, tenant.key);

      const list = async (query: string) =>
        json(await call(`/api/v1/data-sources?${query}`, 'GET', undefined, tenant.key));

      expect(await list('status=pending&limit=2')).toMatchObject({ total: 4, limit: 2, offset: 0 });
      expect((await list('status=pending&limit=2')).data_sources).toHaveLength(2);
      for (const status of ['active', 'processing', 'failed']) {
        expect(await list(`status=${status}`)).toEqual({
          data_sources: [],
          total: 0,
          limit: 50,
          offset: 0,
        });
      }
    });
  });

  describe('sync (D22) and status (D24)', () => {
    it('queues a sync job (202) and returns the same job while it is pending', async () => {
      const source = await createDataSource(service, service.adminKey);

      const first = await call(`/api/v1/data-sources/${source.id}/sync`, 'POST');
      const second = await call(`/api/v1/data-sources/${source.id}/sync`, 'POST');

      expect(first.status).toBe(202);
      const accepted = json(first);
      expect(accepted).toEqual({
        created: true,
        job: {
          id: expect.stringMatching(/^job_[0-9a-z]{26}$/),
          status: 'queued',
          requested_at: expect.stringMatching(TIMESTAMP),
          started_at: null,
          finished_at: null,
          documents_total: null,
          documents_processed: 0,
          chunks_indexed: 0,
          documents_skipped: 0,
          skipped: [],
          error: null,
        },
        data_source: expect.objectContaining({ id: source.id, status: 'pending' }),
      });
      expect(accepted.data_source.current_job).toEqual(accepted.job);
      expect(second.status).toBe(202);
      expect(json(second)).toMatchObject({ created: false, job: accepted.job });
      expect(json(await call(`/api/v1/data-sources/${source.id}`)).current_job).toEqual(
        accepted.job,
      );
    });

    it('creates exactly one job when syncs race', async () => {
      const source = await createDataSource(service, service.adminKey);

      const responses = await Promise.all(
        Array.from({ length: 6 }, () => call(`/api/v1/data-sources/${source.id}/sync`, 'POST')),
      );

      expect(responses.map((response) => response.status)).toEqual(Array(6).fill(202));
      const bodies = responses.map(json);
      expect(bodies.filter((body) => body.created)).toHaveLength(1);
      expect(new Set(bodies.map((body) => body.job.id)).size).toBe(1);
    });

    it('describes a never-synced data source with the D24 status object', async () => {
      const source = await createDataSource(service, service.adminKey);

      const response = await call(`/api/v1/data-sources/${source.id}/status`);

      expect(response.status).toBe(200);
      expect(json(response)).toEqual({
        status: 'pending',
        job_id: null,
        job_status: null,
        chunks_indexed: 0,
        progress_pct: 0,
        estimated_completion: null,
        documents_total: null,
        documents_processed: 0,
        documents_skipped: 0,
        skipped: [],
        started_at: null,
        finished_at: null,
        error: null,
      });
    });

    it('shows the queued job in the status object', async () => {
      const source = await createDataSource(service, service.adminKey);
      const job = json(await call(`/api/v1/data-sources/${source.id}/sync`, 'POST')).job;

      const status = json(await call(`/api/v1/data-sources/${source.id}/status`));

      expect(status).toMatchObject({
        status: 'pending',
        job_id: job.id,
        job_status: 'queued',
        progress_pct: 0,
        estimated_completion: null,
      });
      expect(Number.isInteger(status.chunks_indexed)).toBe(true);
      expect(Number.isInteger(status.progress_pct)).toBe(true);
    });

    it('answers 404 for a sync or status of an unknown data source', async () => {
      const id = unknownId('ds');

      expectNestedError(await call(`/api/v1/data-sources/${id}/sync`, 'POST'), 404, 'not_found');
      expectNestedError(await call(`/api/v1/data-sources/${id}/status`), 404, 'not_found');
    });

    it('refuses a sync body with fields (the endpoint takes none)', async () => {
      const source = await createDataSource(service, service.adminKey);

      const response = await call(`/api/v1/data-sources/${source.id}/sync`, 'POST', {
        force: true,
      });

      const error = expectNestedError(response, 400, 'invalid_request');
      expect(error.details.unknown_fields).toEqual(['force']);
    });
  });
});
