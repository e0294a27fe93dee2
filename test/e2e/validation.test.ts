import { expectFlatError, expectNestedError, fieldPaths } from '../support/error-shapes';
import { createAgent, createDataSource, websiteSource } from '../support/fixtures';
import { type ApiResponse, api, json } from '../support/http-client';
import { unknownId } from '../support/ids';
import { startTestService, type TestService } from '../support/local-service';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';

/**
 * Validation at the edge (D1, D2, D4, D17): every malformed request is a 400
 * `invalid_request` in the nested shape that names the offending fields
 * (`details.fields[].path`) or lists unknown ones (`details.unknown_fields`);
 * nothing malformed is ever stored.
 */
describe('Request validation', () => {
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

  describe('agent bodies', () => {
    const valid = () => ({ name: 'Support agent', data_source_ids: [dataSourceId] });
    const wellFormedDs = unknownId('ds');
    const cases: ReadonlyArray<{
      name: string;
      body: () => unknown;
      fields?: string[];
      unknown?: string[];
    }> = [
      { name: 'an empty object', body: () => ({}), fields: ['name', 'data_source_ids'] },
      { name: 'no name', body: () => ({ data_source_ids: [] }), fields: ['name'] },
      { name: 'no data_source_ids', body: () => ({ name: 'x' }), fields: ['data_source_ids'] },
      { name: 'a numeric name', body: () => ({ ...valid(), name: 42 }), fields: ['name'] },
      { name: 'a null name', body: () => ({ ...valid(), name: null }), fields: ['name'] },
      { name: 'an empty name', body: () => ({ ...valid(), name: '' }), fields: ['name'] },
      { name: 'a blank name', body: () => ({ ...valid(), name: '   ' }), fields: ['name'] },
      {
        name: 'a name of 201 characters (D17: at most 200)',
        body: () => ({ ...valid(), name: 'n'.repeat(201) }),
        fields: ['name'],
      },
      {
        name: 'a system_prompt of 20,001 characters (D17: at most 20,000)',
        body: () => ({ ...valid(), system_prompt: 'p'.repeat(20_001) }),
        fields: ['system_prompt'],
      },
      {
        name: 'a non-string system_prompt',
        body: () => ({ ...valid(), system_prompt: ['a'] }),
        fields: ['system_prompt'],
      },
      {
        name: 'a temperature below 0',
        body: () => ({ ...valid(), temperature: -0.01 }),
        fields: ['temperature'],
      },
      {
        name: 'a temperature above 2 (D18)',
        body: () => ({ ...valid(), temperature: 2.01 }),
        fields: ['temperature'],
      },
      {
        name: 'a temperature given as a string',
        body: () => ({ ...valid(), temperature: '1' }),
        fields: ['temperature'],
      },
      {
        name: 'a null temperature',
        body: () => ({ ...valid(), temperature: null }),
        fields: ['temperature'],
      },
      {
        name: 'a fractional max_tokens',
        body: () => ({ ...valid(), max_tokens: 1.5 }),
        fields: ['max_tokens'],
      },
      { name: 'max_tokens 0', body: () => ({ ...valid(), max_tokens: 0 }), fields: ['max_tokens'] },
      {
        name: 'a negative max_tokens',
        body: () => ({ ...valid(), max_tokens: -5 }),
        fields: ['max_tokens'],
      },
      {
        name: 'max_tokens as a string',
        body: () => ({ ...valid(), max_tokens: '100' }),
        fields: ['max_tokens'],
      },
      {
        name: 'an unknown rag_strategy (D20)',
        body: () => ({ ...valid(), rag_strategy: 'fast' }),
        fields: ['rag_strategy'],
      },
      {
        name: 'a rag_strategy in the wrong case',
        body: () => ({ ...valid(), rag_strategy: 'HYBRID' }),
        fields: ['rag_strategy'],
      },
      { name: 'an empty model', body: () => ({ ...valid(), model: '' }), fields: ['model'] },
      { name: 'a numeric model', body: () => ({ ...valid(), model: 4 }), fields: ['model'] },
      {
        name: 'an unknown status (D20)',
        body: () => ({ ...valid(), status: 'deleted' }),
        fields: ['status'],
      },
      {
        name: 'data_source_ids as a string',
        body: () => ({ ...valid(), data_source_ids: dataSourceId }),
        fields: ['data_source_ids'],
      },
      {
        name: 'a data source id with the agent prefix (D1)',
        body: () => ({ ...valid(), data_source_ids: [unknownId('agt')] }),
        fields: ['data_source_ids.0'],
      },
      {
        name: 'a data source id that is not a ULID',
        body: () => ({ ...valid(), data_source_ids: [dataSourceId, 'ds_123'] }),
        fields: ['data_source_ids.1'],
      },
      {
        name: 'a data source id in upper case',
        body: () => ({ ...valid(), data_source_ids: [dataSourceId.toUpperCase()] }),
        fields: ['data_source_ids.0'],
      },
      {
        name: 'a numeric data source id',
        body: () => ({ ...valid(), data_source_ids: [7] }),
        fields: ['data_source_ids.0'],
      },
      {
        name: 'duplicate data source ids',
        body: () => ({ ...valid(), data_source_ids: [wellFormedDs, wellFormedDs] }),
        fields: ['data_source_ids'],
      },
      {
        name: 'unknown fields (D4)',
        body: () => ({ ...valid(), colour: 'blue', Name: 'x' }),
        unknown: ['colour', 'Name'],
      },
      {
        name: 'read-only fields',
        body: () => ({ ...valid(), id: unknownId('agt'), created_at: '2026-01-01T00:00:00.000Z' }),
        unknown: ['id', 'created_at'],
      },
      {
        name: 'legacy camelCase spellings (v1 takes snake_case only)',
        body: () => ({ name: 'x', dataSourceIds: [] }),
        fields: ['data_source_ids'],
        unknown: ['dataSourceIds'],
      },
      {
        name: 'unknown fields and invalid ones together',
        body: () => ({ name: '', data_source_ids: [], extra: true }),
        fields: ['name'],
        unknown: ['extra'],
      },
      {
        name: 'a temperature too small for storage (1e-200)',
        body: () => ({ ...valid(), temperature: 1e-200 }),
        fields: ['temperature'],
      },
      {
        name: 'the smallest double as temperature',
        body: () => ({ ...valid(), temperature: Number.MIN_VALUE }),
        fields: ['temperature'],
      },
      { name: 'a JSON array', body: () => [valid()], fields: ['(body)'] },
      { name: 'JSON null', body: () => null, fields: ['(body)'] },
      { name: 'a JSON string', body: () => 'agent', fields: ['(body)'] },
      { name: 'a JSON number', body: () => 42, fields: ['(body)'] },
    ];

    it.each(cases)('refuses a create with $name', async ({ body, fields, unknown }) => {
      const before = await countOf('/api/v1/agents');

      const response = await send('/api/v1/agents', 'POST', body());

      expectInvalid(response, { ...(fields ? { fields } : {}), ...(unknown ? { unknown } : {}) });
      expect(await countOf('/api/v1/agents')).toBe(before);
    });

    it('says which data source ids are unknown', async () => {
      const missing = unknownId('ds');

      const response = await send('/api/v1/agents', 'POST', {
        ...valid(),
        data_source_ids: [dataSourceId, missing],
      });

      const error = expectInvalid(response, {
        fields: ['data_source_ids'],
        namedInMessage: false,
      });
      expect(error.details.unknown_data_source_ids).toEqual([missing]);
      expect(error.message).toContain(missing);
    });

    it('says duplicates are duplicates', async () => {
      const response = await send('/api/v1/agents', 'POST', {
        ...valid(),
        data_source_ids: [dataSourceId, dataSourceId],
      });

      expect(expectInvalid(response, { fields: ['data_source_ids'] }).message).toMatch(/duplicate/);
    });

    it('refuses a create without a body', async () => {
      const response = await api(service.url, '/api/v1/agents', {
        method: 'POST',
        key: service.adminKey,
      });

      expectInvalid(response, { fields: ['(body)'] });
    });

    it.each([
      ['a name of exactly 200 characters', { name: 'n'.repeat(200) }],
      ['a system_prompt of exactly 20,000 characters', { system_prompt: 'p'.repeat(20_000) }],
      ['temperature 0', { temperature: 0 }],
      ['temperature 2', { temperature: 2 }],
      ['max_tokens 1', { max_tokens: 1 }],
      ['rag_strategy similarity', { rag_strategy: 'similarity' }],
      ['rag_strategy mmr', { rag_strategy: 'mmr' }],
      ['rag_strategy rerank', { rag_strategy: 'rerank' }],
      ['status disabled', { status: 'disabled' }],
      ['a null system_prompt', { system_prompt: null }],
      ['no data sources at all', { data_source_ids: [] }],
    ])('accepts %s', async (_name, overrides) => {
      const response = await send('/api/v1/agents', 'POST', { ...valid(), ...overrides });

      expect(response.status).toBe(201);
      expect(json(response)).toMatchObject(overrides);
    });

    describe('on update', () => {
      let agent: Record<string, any>;
      beforeAll(async () => {
        agent = await createAgent(service, service.adminKey, valid());
      });

      it.each([
        { name: 'an unknown field', body: { nickname: 'x' }, unknown: ['nickname'] },
        { name: 'an empty name', body: { name: '' }, fields: ['name'] },
        { name: 'a temperature of 3', body: { temperature: 3 }, fields: ['temperature'] },
        { name: 'a fractional max_tokens', body: { max_tokens: 2.5 }, fields: ['max_tokens'] },
        { name: 'an unknown rag_strategy', body: { rag_strategy: 'x' }, fields: ['rag_strategy'] },
        {
          name: 'a bad data source id',
          body: { data_source_ids: ['x'] },
          fields: ['data_source_ids.0'],
        },
        { name: 'a changed id', body: { id: unknownId('agt') }, unknown: ['id'] },
      ])('refuses $name and leaves the agent as it was', async ({ body, fields, unknown }) => {
        const response = await send(`/api/v1/agents/${agent.id}`, 'PUT', body);

        expectInvalid(response, { ...(fields ? { fields } : {}), ...(unknown ? { unknown } : {}) });
        expect(json(await send(`/api/v1/agents/${agent.id}`))).toEqual(agent);
      });

      it('refuses duplicate and unknown data source ids without changing the agent', async () => {
        const missing = unknownId('ds');

        const duplicates = await send(`/api/v1/agents/${agent.id}`, 'PUT', {
          data_source_ids: [dataSourceId, dataSourceId],
        });
        const unknown = await send(`/api/v1/agents/${agent.id}`, 'PUT', {
          name: 'renamed',
          data_source_ids: [missing],
        });

        expectInvalid(duplicates, { fields: ['data_source_ids'] });
        expectInvalid(unknown, { fields: ['data_source_ids'], namedInMessage: false });
        expect(json(await send(`/api/v1/agents/${agent.id}`))).toEqual(agent);
      });
    });
  });

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

  describe('data source bodies', () => {
    const cases: ReadonlyArray<{
      name: string;
      body: unknown;
      fields?: string[];
      unknown?: string[];
    }> = [
      { name: 'an empty object', body: {}, fields: ['type', 'name'] },
      { name: 'an unknown type', body: websiteSource({ type: 'ftp' }), fields: ['type'] },
      {
        name: 'a type in the wrong case',
        body: websiteSource({ type: 'Website' }),
        fields: ['type'],
      },
      { name: 'no name', body: { type: 'file' }, fields: ['name'] },
      { name: 'an empty name', body: websiteSource({ name: '' }), fields: ['name'] },
      {
        name: 'a name of 201 characters',
        body: websiteSource({ name: 'n'.repeat(201) }),
        fields: ['name'],
      },
      {
        name: 'an unknown sync_frequency',
        body: websiteSource({ sync_frequency: 'monthly' }),
        fields: ['sync_frequency'],
      },
      {
        name: 'a config that is a string',
        body: websiteSource({ config: 'https://x.io' }),
        fields: ['config'],
      },
      {
        name: 'a config that is an array',
        body: websiteSource({ config: [] }),
        fields: ['config'],
      },
      {
        name: 'an unknown top-level field',
        body: websiteSource({ url: 'https://x.io' }),
        unknown: ['url'],
      },
      {
        name: 'a status (read-only)',
        body: websiteSource({ status: 'active' }),
        unknown: ['status'],
      },
      {
        name: 'a website without config',
        body: { type: 'website', name: 'w' },
        fields: ['config.url'],
      },
      {
        name: 'a website config without url',
        body: websiteSource({ config: { max_pages: 5 } }),
        fields: ['config.url'],
      },
      {
        name: 'a website url that is not http(s)',
        body: websiteSource({ config: { url: 'ftp://example.com' } }),
        fields: ['config.url'],
      },
      {
        name: 'a javascript: url',
        body: websiteSource({ config: { url: 'javascript:alert(1)' } }),
        fields: ['config.url'],
      },
      {
        name: 'a url without scheme',
        body: websiteSource({ config: { url: 'example.com' } }),
        fields: ['config.url'],
      },
      {
        name: 'a url with credentials',
        body: websiteSource({ config: { url: 'https://u:p@example.com' } }),
        fields: ['config.url'],
      },
      {
        name: 'a numeric url',
        body: websiteSource({ config: { url: 80 } }),
        fields: ['config.url'],
      },
      {
        name: 'max_pages 0 (D17: 1–10,000)',
        body: websiteSource({ config: { url: 'https://x.io', max_pages: 0 } }),
        fields: ['config.max_pages'],
      },
      {
        name: 'max_pages 10,001',
        body: websiteSource({ config: { url: 'https://x.io', max_pages: 10_001 } }),
        fields: ['config.max_pages'],
      },
      {
        name: 'a fractional max_pages',
        body: websiteSource({ config: { url: 'https://x.io', max_pages: 1.5 } }),
        fields: ['config.max_pages'],
      },
      {
        name: 'max_pages as a string',
        body: websiteSource({ config: { url: 'https://x.io', max_pages: '10' } }),
        fields: ['config.max_pages'],
      },
      {
        name: 'a confluence base_url over plain http (D26)',
        body: {
          type: 'confluence',
          name: 'c',
          config: { base_url: 'http://wiki.example.com', space_keys: ['ENG'] },
        },
        fields: ['config.base_url'],
      },
      {
        name: 'a confluence config without space_keys',
        body: { type: 'confluence', name: 'c', config: { base_url: 'https://wiki.example.com' } },
        fields: ['config.space_keys'],
      },
      {
        name: 'empty confluence space_keys',
        body: {
          type: 'confluence',
          name: 'c',
          config: { base_url: 'https://wiki.example.com', space_keys: [] },
        },
        fields: ['config.space_keys'],
      },
      {
        name: 'slack channel_ids as a string',
        body: { type: 'slack', name: 's', config: { channel_ids: 'C01' } },
        fields: ['config.channel_ids'],
      },
      {
        name: 'a google_drive config without folder_ids',
        body: { type: 'google_drive', name: 'g', config: {} },
        fields: ['config.folder_ids'],
      },
      {
        name: 'empty sharepoint drive_ids (P183: omit them for every drive of the site)',
        body: {
          type: 'sharepoint',
          name: 'sp',
          config: { site_url: 'https://acme.sharepoint.com', drive_ids: [] },
        },
        fields: ['config.drive_ids'],
      },
      {
        name: 'a sharepoint config without site_url',
        body: { type: 'sharepoint', name: 'sp', config: { drive_ids: ['b!x'] } },
        fields: ['config.site_url'],
      },
      {
        name: 'a sharepoint site_url that is not a URL',
        body: { type: 'sharepoint', name: 'sp', config: { site_url: 'acme', drive_ids: ['d'] } },
        fields: ['config.site_url'],
      },
      {
        name: "another type's config keys",
        body: { type: 'slack', name: 's', config: { channel_ids: ['C01'], folder_ids: ['F'] } },
        unknown: ['config.folder_ids'],
      },
      {
        name: 'config keys for a file source',
        body: { type: 'file', name: 'f', config: { path: '/etc/passwd' } },
        unknown: ['config.path'],
      },
    ];

    it.each(cases)('refuses a create with $name', async ({ body, fields, unknown }) => {
      const before = await countOf('/api/v1/data-sources');

      const response = await send('/api/v1/data-sources', 'POST', body);

      expectInvalid(response, { ...(fields ? { fields } : {}), ...(unknown ? { unknown } : {}) });
      expect(await countOf('/api/v1/data-sources')).toBe(before);
    });

    it('names an unknown config key in the error', async () => {
      const response = await send(
        '/api/v1/data-sources',
        'POST',
        websiteSource({ config: { url: 'https://x.io', depth: 3 } }),
      );

      const error = expectNestedError(response, 400, 'invalid_request');
      expect(JSON.stringify(error.details)).toContain('depth');
      expect(error.message).toContain('depth');
    });

    it.each([
      ['max_pages 1', { url: 'https://x.io', max_pages: 1 }],
      ['max_pages 10,000', { url: 'http://x.io', max_pages: 10_000 }],
    ])('accepts a website with %s', async (_name, config) => {
      const response = await send('/api/v1/data-sources', 'POST', websiteSource({ config }));

      expect(response.status).toBe(201);
      expect(json(response).config).toEqual(config);
    });

    it('fills in max_pages 100 when a website omits it (D17)', async () => {
      const source = await createDataSource(
        service,
        service.adminKey,
        websiteSource({ config: { url: 'https://x.io' } }),
      );

      expect(source.config).toEqual({ url: 'https://x.io', max_pages: 100 });
    });

    it.each([
      ['confluence', { base_url: 'https://wiki.example.com', space_keys: ['ENG', 'OPS'] }],
      ['slack', { channel_ids: ['C01', 'C02'] }],
      ['google_drive', { folder_ids: ['1AbC'] }],
      ['sharepoint', { site_url: 'https://acme.sharepoint.com/sites/kb', drive_ids: ['b!x'] }],
      ['sharepoint', { site_url: 'https://acme-my.sharepoint.com/personal/jane_acme_com' }],
    ])('accepts a %s connector with its D26 config, not yet connected', async (type, config) => {
      const source = await createDataSource(service, service.adminKey, {
        type,
        name: type,
        config,
      });

      expect(source).toMatchObject({
        type,
        config,
        status: 'pending',
        connection_status: 'Disconnected',
      });
    });

    describe('on update', () => {
      let source: Record<string, any>;
      beforeAll(async () => {
        source = await createDataSource(service, service.adminKey);
      });

      it.each([
        { name: 'a changed type', body: { type: 'slack' }, fields: ['type'] },
        { name: 'an invalid url', body: { config: { url: 'ftp://x' } }, fields: ['config.url'] },
        {
          name: 'a config that drops the url',
          body: { config: { max_pages: 5 } },
          fields: ['config.url'],
        },
        {
          name: 'max_pages out of range',
          body: { config: { url: 'https://x.io', max_pages: 0 } },
          fields: ['config.max_pages'],
        },
        { name: 'a status', body: { status: 'active' }, unknown: ['status'] },
        {
          name: 'an unknown sync_frequency',
          body: { sync_frequency: 'often' },
          fields: ['sync_frequency'],
        },
      ])(
        'refuses $name and leaves the data source as it was',
        async ({ body, fields, unknown }) => {
          const response = await send(`/api/v1/data-sources/${source.id}`, 'PUT', body);

          const error = expectInvalid(response, {
            ...(fields ? { fields } : {}),
            ...(unknown ? { unknown } : {}),
          });
          if (fields?.includes('type')) expect(error.message).toMatch(/type .*cannot change/i);
          expect(json(await send(`/api/v1/data-sources/${source.id}`))).toEqual(source);
        },
      );

      it('accepts the same type again', async () => {
        const response = await send(`/api/v1/data-sources/${source.id}`, 'PUT', {
          type: 'website',
        });

        expect(response.status).toBe(200);
      });
    });
  });

  describe('media type, syntax and size (D4)', () => {
    const post = (rawBody: string | Buffer, contentType?: string) =>
      api(service.url, '/api/v1/agents', {
        method: 'POST',
        key: service.adminKey,
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
      const response = await send(`/api/v1/data-sources/${dataSourceId}?verbose=true`);

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

        const response = await api(service.url, path, {
          method: 'POST',
          key: service.adminKey,
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
      const response = await api(service.url, '/api/data-specs', {
        method: 'POST',
        key: service.adminKey,
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
