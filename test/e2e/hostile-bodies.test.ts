import fc from 'fast-check';
import { JSON_BOUNDS } from '../../layers/core/http/json-bounds';
import { isAuthenticated, type Route } from '../../layers/core/http/route';
import { ROUTES } from '../../layers/core/http/routes/route-table';
import { expectFlatError, expectNestedError } from '../support/error-shapes';
import { routePath } from '../support/http-arbitraries';
import { type ApiResponse, api } from '../support/http-client';
import { unknownId } from '../support/ids';
import { startTestService, type TestService } from '../support/local-service';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';

/** Bodies built to exhaust a parser, a schema or a store (issue 13 item 1), each with what its 400 says. */
const HOSTILE_BODIES: ReadonlyArray<{
  readonly name: string;
  readonly body: () => Buffer;
  readonly message: RegExp;
}> = [
  {
    name: 'nesting 10,000 deep',
    body: () => Buffer.from(`{"name":${'['.repeat(10_000)}${']'.repeat(10_000)}}`),
    message: /deeper than 32 levels/,
  },
  {
    name: 'an array of 20,000 items',
    body: () => Buffer.from(`{"name":"x","data_source_ids":[${'"a",'.repeat(19_999)}"a"]}`),
    message: /array of more than 10000 items/,
  },
  {
    name: 'an object of 2,000 fields',
    body: () =>
      Buffer.from(`{${Array.from({ length: 2_000 }, (_, i) => `"f${i}":${i}`).join(',')}}`),
    message: /object of more than 1000 fields/,
  },
  {
    name: 'a 300,000-character string',
    body: () => Buffer.from(JSON.stringify({ name: 'x'.repeat(300_000) })),
    message: /string longer than 262144 characters/,
  },
  {
    name: 'a number past Infinity',
    body: () => Buffer.from('{"name":"x","temperature":1e999}'),
    message: /number too large/,
  },
  {
    name: 'a 500-digit number',
    body: () => Buffer.from(`{"name":"x","max_tokens":${'9'.repeat(500)}}`),
    message: /number longer than 64 characters/,
  },
  {
    name: 'a repeated field',
    body: () => Buffer.from('{"name":"first","name":"second"}'),
    message: /gives a field twice at name/,
  },
  {
    name: 'invalid UTF-8',
    body: () =>
      Buffer.concat([Buffer.from('{"name":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]),
    message: /not valid UTF-8/,
  },
  {
    name: 'an unpaired surrogate',
    body: () => Buffer.from('{"name":"\\ud800"}'),
    message: /unpaired surrogate/,
  },
];

/** Routes that take a body: every POST, PUT and PATCH of the table, generated so new routes are covered. */
const BODY_ROUTES = ROUTES.filter((route) => ['POST', 'PUT', 'PATCH'].includes(route.method));

/** Routes the bootstrap Admin key reaches the body of: keyed routes (session-only ones answer 401 first). */
const keyed = (route: Route) => isAuthenticated(route) && route.access !== 'session';

function concrete(route: Route): string {
  return routePath(route, unknownId('agt'));
}

function expectRefusal(route: Route, response: ApiResponse, status: number): string {
  const legacy = !/^\/api\/v1\//.test(route.path);
  return legacy
    ? String(expectFlatError(response, status).error)
    : expectNestedError(response, status, 'invalid_request').message;
}

/**
 * Issue 13 item 1, over HTTP against the local runtime: every route of the
 * table that takes a body refuses each hostile body with 400 naming the
 * bound (P197) before any handler runs, in its path family's error shape,
 * and never with a 5xx. Generated from the route table.
 */
describe('Hostile bodies on every route (issue 13)', () => {
  const clock = new TestClock();
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService({ clock });
  });
  afterAll(() => service.end());

  const send = (route: Route, body: Buffer) => {
    clock.advance(REFILL_ALL_BUCKETS_MS);
    return api(service.url, concrete(route), {
      method: route.method,
      key: service.adminKey,
      rawBody: body,
      headers: { 'content-type': 'application/json' },
    });
  };

  it('covers every route that takes a body', () => {
    expect(BODY_ROUTES.length).toBeGreaterThan(40);
    expect(BODY_ROUTES.filter(keyed).length).toBeGreaterThan(20);
  });

  describe.each(HOSTILE_BODIES)('$name', ({ body, message }) => {
    it.each(BODY_ROUTES.filter(keyed).map((route) => [`${route.method} ${route.path}`, route]))(
      'is refused with 400 by %s',
      async (_name, route) => {
        const response = await send(route as Route, body());

        expect(expectRefusal(route as Route, response, 400)).toMatch(message);
      },
    );

    it('gets a well-formed 4xx from every session-only and public route', async () => {
      for (const route of BODY_ROUTES.filter((each) => !keyed(each))) {
        const response = await send(route, body());

        expect({ route: route.path, status: response.status }).toEqual({
          route: route.path,
          status: expect.any(Number),
        });
        expect(response.status).toBeGreaterThanOrEqual(400);
        expect(response.status).toBeLessThan(500);
        expect(response.headers.get('x-request-id')).toMatch(/^req_/);
      }
    });
  });

  it('refuses any composition of hostile parts on any route with a 4xx, never a 5xx', async () => {
    const hostileValue = fc.letrec<{ value: string }>((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.constantFrom('1e999', '-1e999', '"\\udbff"', '"x"', '0', 'null', '"\\u0000"'),
        fc.integer({ min: 1, max: 80 }).map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`),
        fc.array(tie('value'), { maxLength: 4 }).map((items) => `[${items.join(',')}]`),
        fc
          .array(fc.tuple(fc.constantFrom('name', 'a', 'b', 'query'), tie('value')), {
            maxLength: 4,
          })
          .map((fields) => `{${fields.map(([key, value]) => `"${key}":${value}`).join(',')}}`),
      ),
    })).value;

    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...BODY_ROUTES), hostileValue, async (route, text) => {
        const response = await send(route, Buffer.from(text));

        expect(response.status).toBeLessThan(500);
        expect(response.headers.get('x-request-id')).toMatch(/^req_/);
      }),
      { numRuns: 100 },
    );
  });

  it('names its bounds in one place', () => {
    expect(JSON_BOUNDS).toEqual({
      depth: 32,
      arrayItems: 10_000,
      objectKeys: 1_000,
      values: 100_000,
      stringLength: 262_144,
      numberLength: 64,
    });
  });
});
