import { api, json } from './http-client';
import type { TestService } from './local-service';

/**
 * A valid website data source body; `overrides` replace top-level fields.
 * `manual`, because a scheduled source is due at once (D23): any
 * `workers.step()` would crawl its (external) URL.
 */
export function websiteSource(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: 'website',
    name: 'Docs site',
    config: { url: 'https://docs.example.com', max_pages: 50 },
    sync_frequency: 'manual',
    ...overrides,
  };
}

/** Creates a data source over HTTP and returns its body; fails the test unless 201. */
export async function createDataSource(
  service: TestService,
  key: string,
  body: Record<string, unknown> = websiteSource(),
): Promise<Record<string, any>> {
  const response = await api(service.url, '/api/v1/data-sources', { method: 'POST', key, body });
  expect({ status: response.status, body: response.body }).toMatchObject({ status: 201 });
  return json(response);
}

/** Creates an agent over HTTP and returns its body; fails the test unless 201. */
export async function createAgent(
  service: TestService,
  key: string,
  body: Record<string, unknown>,
): Promise<Record<string, any>> {
  const response = await api(service.url, '/api/v1/agents', { method: 'POST', key, body });
  expect({ status: response.status, body: response.body }).toMatchObject({ status: 201 });
  return json(response);
}
