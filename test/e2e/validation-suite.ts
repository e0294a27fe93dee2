import { expectNestedError, fieldPaths } from '../support/error-shapes';
import { createDataSource } from '../support/fixtures';
import { type ApiResponse, api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';

/**
 * The service and request helpers the request-validation suites share: one
 * service on a controllable clock with a website data source, `send` as the
 * admin, and `expectInvalid` for the nested 400 naming its fields.
 */
export function validationSuite() {
  const clock = new TestClock();
  let service: TestService;
  let dataSourceId: string;

  beforeAll(async () => {
    service = await startTestService({ clock });
    dataSourceId = (await createDataSource(service, service.adminKey)).id;
  });
  afterAll(() => service.end());
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  const send = (path: string, method = 'GET', body?: unknown): Promise<ApiResponse> =>
    api(service.url, path, {
      method,
      key: service.adminKey,
      ...(body !== undefined ? { body } : {}),
    });

  /** Asserts a nested 400 naming exactly `fields` (and `unknown` fields, if given). */
  function expectInvalid(
    response: ApiResponse,
    expected: { fields?: string[]; unknown?: string[]; namedInMessage?: boolean },
  ): { message: string; details: Record<string, any> } {
    const error = expectNestedError(response, 400, 'invalid_request');
    expect([...new Set(fieldPaths(error))].sort()).toEqual([...(expected.fields ?? [])].sort());
    expect(error.details.unknown_fields).toEqual(expected.unknown);
    if (expected.namedInMessage !== false) {
      for (const field of [...(expected.fields ?? []), ...(expected.unknown ?? [])]) {
        expect(error.message).toContain(field);
      }
    }
    return error;
  }

  const countOf = async (path: string): Promise<number> => json(await send(path)).total;

  return {
    clock,
    send,
    countOf,
    expectInvalid,
    service: () => service,
    dataSourceId: () => dataSourceId,
  };
}
