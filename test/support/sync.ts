/** Data source sync helpers for the end-to-end tests: the API calls, and the sync worker run by hand. */
import { createDataSource } from './fixtures';
import { api, json } from './http-client';
import type { TestService } from './local-service';

/** GET /api/v1/data-sources/:id/status (D24); fails the test unless 200. */
export async function syncStatus(
  service: TestService,
  key: string,
  dataSourceId: string,
): Promise<Record<string, any>> {
  const response = await api(service.url, `/api/v1/data-sources/${dataSourceId}/status`, { key });
  expect(response.status).toBe(200);
  return json(response);
}

/** POST /api/v1/data-sources/:id/sync; returns the 202 body (`job`, `data_source`, `created`). */
export async function requestSync(
  service: TestService,
  key: string,
  dataSourceId: string,
): Promise<Record<string, any>> {
  const response = await api(service.url, `/api/v1/data-sources/${dataSourceId}/sync`, {
    method: 'POST',
    key,
  });
  expect({ status: response.status, body: response.body }).toMatchObject({ status: 202 });
  return json(response);
}

/**
 * Requests a sync, runs the due sync jobs through the real sync-worker
 * handler (background workers are off in tests), and returns the status.
 */
export async function syncNow(
  service: TestService,
  key: string,
  dataSourceId: string,
): Promise<Record<string, any>> {
  await requestSync(service, key, dataSourceId);
  await service.runtime.workers.stepSync();
  return syncStatus(service, key, dataSourceId);
}

/** A manual website data source for `url`, synced once; fails the test unless the sync succeeded. */
export async function indexWebsite(
  service: TestService,
  key: string,
  url: string,
  name = 'Loopback site',
): Promise<{ source: Record<string, any>; status: Record<string, any> }> {
  const source = await createDataSource(service, key, {
    type: 'website',
    name,
    config: { url, max_pages: 50 },
    sync_frequency: 'manual',
  });
  const status = await syncNow(service, key, source.id);
  expect(status).toMatchObject({ status: 'active', job_status: 'succeeded' });
  return { source, status };
}
