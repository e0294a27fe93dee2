import { api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { createTenant, type TestKey } from '../support/tenants';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';

export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * The service and request helpers the knowledge-base suites share: one
 * service on a controllable clock with a second organization, `send` as the
 * admin by default, and `create` for an article that must be created.
 */
export function kbSuite() {
  const clock = new TestClock();
  let service: TestService;
  let key: string;
  let other: TestKey;

  const send = (path: string, options: { method?: string; body?: unknown; key?: string } = {}) =>
    api(service.url, path, { key, ...options });
  const create = async (body: Record<string, unknown>) => {
    const response = await send('/api/v1/kb', { method: 'POST', body });
    expect({ status: response.status, body: response.body }).toMatchObject({ status: 201 });
    return json(response);
  };

  beforeAll(async () => {
    service = await startTestService({ clock });
    key = service.adminKey;
    other = await createTenant(service, { name: 'Other org' });
  });
  afterAll(() => service.end());
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  return { clock, send, create, service: () => service, key: () => key, other: () => other };
}
