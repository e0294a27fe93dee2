import { expectNestedError } from '../support/error-shapes';
import { createDataSource, websiteSource } from '../support/fixtures';
import { json } from '../support/http-client';
import { validationSuite } from './validation-suite';

/**
 * Validation at the edge (D1, D2, D4, D17): every malformed request is a 400
 * `invalid_request` in the nested shape that names the offending fields
 * (`details.fields[].path`) or lists unknown ones (`details.unknown_fields`);
 * nothing malformed is ever stored.
 */
describe('Request validation', () => {
  const { send, countOf, expectInvalid, service } = validationSuite();

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
        service(),
        service().adminKey,
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
      const source = await createDataSource(service(), service().adminKey, {
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
        source = await createDataSource(service(), service().adminKey);
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
});
