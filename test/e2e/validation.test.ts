import { expectFlatError, expectNestedError, fieldPaths } from '../support/error-shapes';
import { websiteSource } from '../support/fixtures';
import { api, json } from '../support/http-client';
import { unknownId } from '../support/ids';
import { validationSuite } from './validation-suite';

/**
 * Validation at the edge (D1, D2, D4, D17): every malformed request is a 400
 * `invalid_request` in the nested shape that names the offending fields
 * (`details.fields[].path`) or lists unknown ones (`details.unknown_fields`);
 * nothing malformed is ever stored.
 */
describe('Request validation', () => {
  const { send, countOf, expectInvalid, service, dataSourceId } = validationSuite();

  describe('path ids (D1: malformed is 400, unknown is 404)', () => {
    const ulidBody = unknownId('agt').slice(4);
    const malformed: ReadonlyArray<[string, string]> = [
      ['the data source prefix', `ds_${ulidBody}`],
      ['a short body', 'agt_123'],
      ['an upper-case prefix', `AGT_${ulidBody}`],
      ['an upper-case ULID', `agt_${ulidBody.toUpperCase()}`],
      ['a letter ULIDs never use (u)', `agt_${ulidBody.slice(0, 25)}u`],
      ['a trailing character', `agt_${ulidBody}x`],
      ['no prefix', ulidBody],
      ['an encoded space', 'agt_%20'],
      ['encoded unicode', `agt_${encodeURIComponent('é'.repeat(26))}`],
    ];

    it.each(malformed)('refuses an agent id with %s (400)', async (_name, id) => {
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const response = await send(
          `/api/v1/agents/${id}`,
          method,
          method === 'PUT' ? {} : undefined,
        );

        expectInvalid(response, { fields: ['id'] });
      }
    });

    it.each([
      ['GET', ''],
      ['PUT', ''],
      ['DELETE', ''],
      ['POST', '/sync'],
      ['GET', '/status'],
    ])('refuses %s on a data source path with an agent id (400)', async (method, suffix) => {
      const response = await send(
        `/api/v1/data-sources/${unknownId('agt')}${suffix}`,
        method,
        method === 'PUT' ? {} : undefined,
      );

      expectInvalid(response, { fields: ['id'] });
    });

    it('answers a well-formed id that does not exist with 404 not_found', async () => {
      for (const path of [
        `/api/v1/agents/${unknownId('agt')}`,
        `/api/v1/data-sources/${unknownId('ds')}`,
      ]) {
        expectNestedError(await send(path), 404, 'not_found');
      }
    });

    it('refuses a malformed id on legacy paths in the flat shape', async () => {
      const response = await send('/api/ai-agent-managers/agt_123');

      expect(expectFlatError(response, 400)).toMatchObject({
        status: 400,
        code: 'invalid_request',
        details: { fields: [{ path: 'id' }] },
      });
    });
  });

  describe('media type, syntax and size (D4)', () => {
    const post = (rawBody: string | Buffer, contentType?: string) =>
      api(service().url, '/api/v1/agents', {
        method: 'POST',
        key: service().adminKey,
        rawBody,
        headers: contentType ? { 'content-type': contentType } : {},
      });
    const validJson = () => JSON.stringify({ name: 'typed', data_source_ids: [] });

    it.each([
      ['text/plain', 'text/plain'],
      ['form data', 'application/x-www-form-urlencoded'],
      ['a JSON look-alike', 'application/jsonx'],
      ['a vendor JSON type', 'application/vnd.api+json'],
    ])('refuses %s with 415 invalid_request', async (_name, contentType) => {
      const response = await post(validJson(), contentType);

      const error = expectNestedError(response, 415, 'invalid_request');
      expect(error.message).toMatch(/application\/json/);
    });

    it('refuses a body without a Content-Type with 415', async () => {
      const response = await post(Buffer.from(validJson()));

      expectNestedError(response, 415, 'invalid_request');
    });

    it.each([
      'application/json; charset=utf-8',
      'Application/JSON',
      'application/json;charset=UTF-8',
    ])('accepts Content-Type %s', async (contentType) => {
      const response = await post(validJson(), contentType);

      expect(response.status).toBe(201);
    });

    it.each([
      ['truncated JSON', '{"name":'],
      ['trailing garbage', '{"name":"x","data_source_ids":[]} x'],
      ['single quotes', "{'name':'x'}"],
      ['a bare word', 'agent'],
      ['a trailing comma', '{"name":"x","data_source_ids":[],}'],
    ])('refuses %s with 400 invalid_request', async (_name, rawBody) => {
      const before = await countOf('/api/v1/agents');

      const response = await post(rawBody, 'application/json');

      expect(expectNestedError(response, 400, 'invalid_request').message).toMatch(/JSON/);
      expect(await countOf('/api/v1/agents')).toBe(before);
    });

    it('refuses a body over 1 MiB with 413 invalid_request', async () => {
      const padding = 'x'.repeat(1024 * 1024);
      const rawBody = JSON.stringify({ name: 'big', data_source_ids: [], system_prompt: padding });

      const response = await post(rawBody, 'application/json');

      const error = expectNestedError(response, 413, 'invalid_request');
      expect(error.details).toEqual({ limit_bytes: 1024 * 1024 });
    });

    it('judges a body of exactly 1 MiB on its content, not its size', async () => {
      const skeleton = JSON.stringify({ name: 'big', data_source_ids: [], system_prompt: '' });
      const prompt = 'x'.repeat(1024 * 1024 - skeleton.length);
      const rawBody = JSON.stringify({ name: 'big', data_source_ids: [], system_prompt: prompt });
      expect(Buffer.byteLength(rawBody)).toBe(1024 * 1024);

      const response = await post(rawBody, 'application/json');

      expectInvalid(response, { fields: ['system_prompt'] });
    });

    it('counts bytes, not characters, towards the limit', async () => {
      const rawBody = JSON.stringify({ name: 'é'.repeat(600 * 1024), data_source_ids: [] });
      expect(rawBody.length).toBeLessThan(1024 * 1024);

      const response = await post(rawBody, 'application/json');

      expectNestedError(response, 413, 'invalid_request');
    });
  });

  describe('query strings (D2)', () => {
    const badPagination: ReadonlyArray<[string, string]> = [
      ['limit=0', 'limit'],
      ['limit=201', 'limit'],
      ['limit=-1', 'limit'],
      ['limit=1.5', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=', 'limit'],
      ['limit=1e2', 'limit'],
      ['limit=%2B5', 'limit'],
      ['limit=%205', 'limit'],
      ['limit=0x10', 'limit'],
      ['limit=99999999999', 'limit'],
      ['offset=-1', 'offset'],
      ['offset=1.5', 'offset'],
      ['offset=ten', 'offset'],
      ['limit=1&limit=2', 'limit'],
      ['offset=0&offset=0', 'offset'],
    ];

    describe.each(['/api/v1/agents', '/api/v1/data-sources'])('on %s', (path) => {
      it.each(badPagination)('refuses ?%s with 400 naming %s', async (query, field) => {
        const response = await send(`${path}?${query}`);

        expectInvalid(response, { fields: [field] });
      });

      it.each(['foo=1', 'Limit=5', 'page=2', 'limit=5&sort=name'])(
        'refuses the unknown parameter in ?%s',
        async (query) => {
          const response = await send(`${path}?${query}`);

          const error = expectNestedError(response, 400, 'invalid_request');
          expect(error.details.unknown_fields).toHaveLength(1);
          expect(query).toContain(error.details.unknown_fields[0]);
        },
      );

      it.each(['limit=1', 'limit=200', 'offset=0', 'limit=50&offset=3', 'limit=007'])(
        'accepts ?%s',
        async (query) => {
          const response = await send(`${path}?${query}`);

          expect(response.status).toBe(200);
        },
      );
    });

    it.each(['status=deleted', 'status=ACTIVE', 'status=', 'status=active&status=failed'])(
      'refuses the data source list filter ?%s',
      async (query) => {
        const response = await send(`/api/v1/data-sources?${query}`);

        expectInvalid(response, { fields: ['status'] });
      },
    );

    it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty'])(
      'refuses a query parameter named %s as unknown, on v1 and legacy lists',
      async (name) => {
        const v1 = await send(`/api/v1/agents?${name}=1`);
        const legacy = await send(`/api/data-specs?${name}=1`);

        expectInvalid(v1, { unknown: [name] });
        // Legacy names are read as camelCase synonyms first (D7), so toString is reported as to_string.
        expect(expectFlatError(legacy, 400).details.unknown_fields).toEqual([
          name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`),
        ]);
      },
    );

    it('refuses query parameters on endpoints that take none', async () => {
      const response = await send(`/api/v1/data-sources/${dataSourceId()}?verbose=true`);

      expectInvalid(response, { unknown: ['verbose'] });
    });

    it('refuses bad pagination on legacy lists in the flat shape', async () => {
      const response = await send('/api/ai-agent-managers?limit=0');

      expect(expectFlatError(response, 400)).toMatchObject({
        status: 400,
        code: 'invalid_request',
        details: { fields: [{ path: 'limit' }] },
      });
    });
  });

  describe('legacy bodies (flat shape)', () => {
    it('refuses a legacy create with missing fields, naming them', async () => {
      const response = await send('/api/ai-agent-managers', 'POST', {});

      const body = expectFlatError(response, 400);
      expect(body).toMatchObject({ status: 400, code: 'invalid_request' });
      expect(fieldPaths(body).sort()).toEqual(['data_source_ids', 'name']);
    });

    it('refuses unknown legacy fields, listing them', async () => {
      const response = await send('/api/data-specs', 'POST', {
        ...websiteSource(),
        colour: 'red',
      });

      expect(expectFlatError(response, 400).details.unknown_fields).toEqual(['colour']);
    });

    it.each([
      ['/api/v1/agents', '/api/v1/agents'],
      ['/api/ai-agent-managers', '/api/v1/agents'],
    ])(
      'refuses a __proto__ field on %s as unknown, not as the fields it carries',
      async (path, listPath) => {
        const before = await countOf(listPath);
        const rawBody = '{"__proto__":{"name":"smuggled","data_source_ids":[]}}';

        const response = await api(service().url, path, {
          method: 'POST',
          key: service().adminKey,
          rawBody,
          headers: { 'content-type': 'application/json' },
        });

        expect(response.status).toBe(400);
        expect(json(response)).toMatchObject(
          path.startsWith('/api/v1')
            ? { error: { details: { unknown_fields: ['__proto__'] } } }
            : { details: { unknown_fields: ['__proto__'] } },
        );
        expect(await countOf(listPath)).toBe(before);
      },
    );

    it('refuses a non-JSON legacy body with a flat 415', async () => {
      const response = await api(service().url, '/api/data-specs', {
        method: 'POST',
        key: service().adminKey,
        rawBody: 'type=website',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });

      expect(expectFlatError(response, 415)).toMatchObject({
        status: 415,
        code: 'invalid_request',
      });
    });
  });
});
