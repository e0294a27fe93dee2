import fc from 'fast-check';
import { DATA_SOURCE_LIMITS } from '../../layers/core/domain/data-source';
import { expectNestedError } from '../support/error-shapes';
import { api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';

/** What D26 and P177 accept for a google_drive `config`: the oracle the service is checked against. */
function acceptable(config: unknown): boolean {
  if (config === null || typeof config !== 'object' || Array.isArray(config)) return false;
  const entries = Object.entries(config);
  if (entries.length === 0) return false;
  return entries.every(
    ([key, value]) =>
      (key === 'folder_ids' || key === 'shared_drive_ids') &&
      Array.isArray(value) &&
      value.length >= 1 &&
      value.length <= DATA_SOURCE_LIMITS.listItemsMax &&
      value.every((id) => typeof id === 'string' && id.length >= 1 && id.length <= 256),
  );
}

const id = fc.oneof(
  fc.string({ minLength: 1, maxLength: 40 }),
  fc.constantFrom('', "it's", '1AbC', 'x'.repeat(257), '0AAbCdEfG_uk9PVA'),
  fc.integer(),
  fc.constant(null),
);
const ids = fc.oneof(
  fc.array(id, { maxLength: 5 }),
  fc.array(fc.constant('f'), { minLength: 101, maxLength: 102 }),
  fc.string(),
  fc.constant(null),
);
const config = fc.oneof(
  fc.record({ folder_ids: ids, shared_drive_ids: ids, drive_ids: ids }, { requiredKeys: [] }),
  fc.constantFrom({}, [], null, 'folder', 7),
);

/**
 * Property-based fuzzing of the google_drive `config` (P177) over real HTTP,
 * at create and update: never a 5xx, 201/200 exactly when the oracle accepts,
 * else the nested 400 (D5) naming `config.` fields, and nothing written.
 */
describe('Fuzzing the google_drive config (P177)', () => {
  const clock = new TestClock();
  let service: TestService;
  let existingId: string;

  beforeAll(async () => {
    service = await startTestService({ clock });
    const created = await api(service.url, '/api/v1/data-sources', {
      method: 'POST',
      key: service.adminKey,
      body: { type: 'google_drive', name: 'Fuzzed', config: { folder_ids: ['root'] } },
    });
    existingId = json(created).id;
  });
  afterAll(() => service.end());
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  it('creates exactly the configs D26 and P177 accept', async () => {
    await fc.assert(
      fc.asyncProperty(config, async (value) => {
        clock.advance(REFILL_ALL_BUCKETS_MS);
        const response = await api(service.url, '/api/v1/data-sources', {
          method: 'POST',
          key: service.adminKey,
          body: { type: 'google_drive', name: 'Fuzzed', config: value },
        });
        if (acceptable(value)) {
          expect(response.status).toBe(201);
          expect(json(response).config).toEqual(value);
          await api(service.url, `/api/v1/data-sources/${json(response).id}`, {
            method: 'DELETE',
            key: service.adminKey,
          });
        } else {
          const error = expectNestedError(response, 400, 'invalid_request');
          expect(JSON.stringify(error.details)).toContain('config');
        }
      }),
      { numRuns: 40 },
    );
  });

  it('updates exactly to the configs D26 and P177 accept, else keeps the source as it was', async () => {
    await fc.assert(
      fc.asyncProperty(config, async (value) => {
        clock.advance(REFILL_ALL_BUCKETS_MS);
        const before = json(
          await api(service.url, `/api/v1/data-sources/${existingId}`, { key: service.adminKey }),
        ).config;
        const response = await api(service.url, `/api/v1/data-sources/${existingId}`, {
          method: 'PUT',
          key: service.adminKey,
          body: { config: value },
        });
        const after = json(
          await api(service.url, `/api/v1/data-sources/${existingId}`, { key: service.adminKey }),
        ).config;
        if (acceptable(value)) {
          expect(response.status).toBe(200);
          expect(after).toEqual(value);
        } else {
          expect(response.status).toBe(400);
          expect(after).toEqual(before);
        }
      }),
      { numRuns: 40 },
    );
  });
});
