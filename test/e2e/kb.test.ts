import { createHash } from 'node:crypto';
import { KB_ARTICLE_LIMITS, kbDataSourceIdFor } from '../../layers/core/domain/kb-article';
import { expectFlatError, expectNestedError, fieldPaths } from '../support/error-shapes';
import { api, json } from '../support/http-client';
import { unknownId } from '../support/ids';
import { createTenant } from '../support/tenants';
import { ISO_MS, kbSuite } from './kb-suite';

/**
 * Knowledge-base articles over HTTP (issue 11 item 1; D32, D9, D13, D17):
 * the v1 and legacy routes, versions, the status filter and pagination (D2),
 * scopes and roles, other tenants, and bad input. What published articles
 * are to agents is in kb-retrieval.test.ts.
 */
describe('Knowledge-base articles (D32)', () => {
  const { send, create, service, key } = kbSuite();

  describe('create and read', () => {
    it('creates version 1 as a draft, in the built-in kb data source (P115, P116)', async () => {
      const response = await send('/api/v1/kb', {
        method: 'POST',
        body: {
          title: '  Returns policy ',
          content: '# Returns\n\nWithin 30 days.',
          tags: ['policy', 'policy', 'returns'],
        },
      });

      expect(response.status).toBe(201);
      const article = json(response);
      expect(article).toEqual({
        id: expect.stringMatching(/^kb_[0-9a-z]{26}$/),
        title: 'Returns policy',
        content: '# Returns\n\nWithin 30 days.',
        tags: ['policy', 'returns'],
        status: 'draft',
        version: 1,
        data_source_id: kbDataSourceIdFor(service().orgId),
        created_at: expect.stringMatching(ISO_MS),
        updated_at: article.created_at,
      });
      const read = await send(`/api/v1/kb/${article.id}`);
      expect({ status: read.status, body: read.body }).toEqual({ status: 200, body: article });
    });

    it('lists the built-in kb data source among the data sources, and refuses to change or delete it (P115)', async () => {
      const kbSourceId = kbDataSourceIdFor(service().orgId);
      const sources = json(await send('/api/v1/data-sources?limit=200')).data_sources as Array<
        Record<string, any>
      >;
      expect(sources.filter((source) => source.type === 'kb')).toEqual([
        expect.objectContaining({
          id: kbSourceId,
          name: 'Knowledge base',
          sync_frequency: 'manual',
        }),
      ]);

      const renamed = await send(`/api/v1/data-sources/${kbSourceId}`, {
        method: 'PUT',
        body: { name: 'Mine' },
      });
      expect(expectNestedError(renamed, 409, 'invalid_request').details).toEqual({
        reason: 'built_in_data_source',
      });
      const deleted = await send(`/api/v1/data-sources/${kbSourceId}`, { method: 'DELETE' });
      expect(expectNestedError(deleted, 409, 'invalid_request').details).toEqual({
        reason: 'built_in_data_source',
      });
      const second = await send('/api/v1/data-sources', {
        method: 'POST',
        body: { type: 'kb', name: 'Another' },
      });
      expect(fieldPaths(expectNestedError(second, 400, 'invalid_request'))).toContain('type');
    });

    it('creates exactly one kb data source when an organization’s first uses race (P115)', async () => {
      const tenant = await createTenant(service(), { name: 'Racing org' });
      const responses = await Promise.all(
        Array.from({ length: 6 }, (_, index) =>
          index % 2 === 0
            ? api(service().url, '/api/v1/kb', {
                key: tenant.key,
                method: 'POST',
                body: { title: `A${index}`, content: 'x' },
              })
            : api(service().url, '/api/v1/kb', { key: tenant.key }),
        ),
      );

      expect(responses.map((response) => response.status).sort()).toEqual([
        200, 200, 200, 201, 201, 201,
      ]);
      const sources = json(
        await api(service().url, '/api/v1/data-sources', { key: tenant.key }),
      ).data_sources;
      expect(sources).toEqual([
        expect.objectContaining({ id: kbDataSourceIdFor(tenant.orgId), type: 'kb' }),
      ]);
      const ids = new Set(responses.map((response) => json(response).data_source_id));
      expect([...ids]).toEqual([kbDataSourceIdFor(tenant.orgId)]);
    });

    it('accepts 200,000 characters of content and refuses one more, naming the field (D17)', async () => {
      const longest = 'Lorem ipsum dolor sit amet. '
        .repeat(8000)
        .slice(0, KB_ARTICLE_LIMITS.contentMax);
      const created = await create({ title: 'Long', content: longest });
      expect(json(await send(`/api/v1/kb/${created.id}`)).content).toHaveLength(200_000);

      const refused = await send('/api/v1/kb', {
        method: 'POST',
        body: { title: 'Longer', content: `${longest}x` },
      });
      expect(fieldPaths(expectNestedError(refused, 400, 'invalid_request'))).toEqual(['content']);
      const refusedUpdate = await send(`/api/v1/kb/${created.id}`, {
        method: 'PUT',
        body: { content: `${longest}x` },
      });
      expect(fieldPaths(expectNestedError(refusedUpdate, 400, 'invalid_request'))).toEqual([
        'content',
      ]);
      expect(json(await send(`/api/v1/kb/${created.id}`)).version).toBe(1);
    });

    it('refuses content that stays above what an item holds once compressed, naming the field (P117)', async () => {
      // 200,000 pseudo-random CJK ideographs: 600 KB of UTF-8 that gzip cannot bring under 350,000 bytes.
      const bytes = Buffer.concat(
        Array.from({ length: KB_ARTICLE_LIMITS.contentMax / 16 }, (_, i) =>
          createHash('sha256').update(String(i)).digest(),
        ),
      );
      let noise = '';
      for (let i = 0; i < KB_ARTICLE_LIMITS.contentMax; i += 1) {
        noise += String.fromCharCode(0x4e00 + (bytes.readUInt16BE(i * 2) % 20_000));
      }
      const before = json(await send('/api/v1/kb?limit=1')).total;

      const refused = await send('/api/v1/kb', {
        method: 'POST',
        body: { title: 'Noise', content: noise },
      });

      expect(fieldPaths(expectNestedError(refused, 400, 'invalid_request'))).toEqual(['content']);
      expect(json(await send('/api/v1/kb?limit=1')).total).toBe(before);
    });

    it.each([
      ['no title', { content: 'x' }, 'title'],
      ['an empty title', { title: '   ', content: 'x' }, 'title'],
      ['no content', { title: 'T' }, 'content'],
      ['content that is not a string', { title: 'T', content: 42 }, 'content'],
      ['tags that are not strings', { title: 'T', content: 'x', tags: [1] }, 'tags.0'],
      ['an empty tag', { title: 'T', content: 'x', tags: [' '] }, 'tags.0'],
      [
        'too many tags',
        { title: 'T', content: 'x', tags: Array.from({ length: 51 }, (_, i) => `t${i}`) },
        'tags',
      ],
      ['an unknown status', { title: 'T', content: 'x', status: 'archived' }, 'status'],
    ])('refuses a body with %s (400 naming the field, nothing stored)', async (_, body, field) => {
      const before = json(await send('/api/v1/kb?limit=1')).total;
      const response = await send('/api/v1/kb', { method: 'POST', body });

      expect(fieldPaths(expectNestedError(response, 400, 'invalid_request'))).toContain(field);
      expect(json(await send('/api/v1/kb?limit=1')).total).toBe(before);
    });

    it('refuses unknown fields (D4) and bodies that are not JSON', async () => {
      const unknown = await send('/api/v1/kb', {
        method: 'POST',
        body: { title: 'T', content: 'x', author: 'me' },
      });
      expect(expectNestedError(unknown, 400, 'invalid_request').details).toMatchObject({
        unknown_fields: ['author'],
      });
      const text = await api(service().url, '/api/v1/kb', {
        method: 'POST',
        key: key(),
        rawBody: 'title=T',
        headers: { 'content-type': 'text/plain' },
      });
      expectNestedError(text, 415, 'invalid_request');
    });

    it('answers a malformed id with 400 and an unknown one with 404 (D1)', async () => {
      expectNestedError(await send(`/api/v1/kb/${unknownId('agt')}`), 400, 'invalid_request');
      expectNestedError(await send('/api/v1/kb/kb_nope'), 400, 'invalid_request');
      for (const path of [
        `/api/v1/kb/${unknownId('kb')}`,
        `/api/v1/kb/${unknownId('kb')}/versions`,
        `/api/v1/kb/${unknownId('kb')}/versions/1`,
      ]) {
        expectNestedError(await send(path), 404, 'not_found');
      }
      expectNestedError(
        await send(`/api/v1/kb/${unknownId('kb')}`, { method: 'PUT', body: { title: 'x' } }),
        404,
        'not_found',
      );
      expectNestedError(
        await send(`/api/v1/kb/${unknownId('kb')}`, { method: 'DELETE' }),
        404,
        'not_found',
      );
    });
  });

  describe('legacy /api/kb (D7, D8, P121)', () => {
    it('lists, creates and updates with deprecation headers and the v1 bodies', async () => {
      const created = await send('/api/kb', {
        method: 'POST',
        body: { title: 'Legacy', content: 'Old path', status: 'published' },
      });
      expect(created.status).toBe(201);
      expect(created.headers.get('deprecation')).toBe('true');
      expect(created.headers.get('link')).toBe('</api/v1/kb>; rel="successor-version"');
      expect(json(created)).toMatchObject({ title: 'Legacy', version: 1, status: 'published' });

      const updated = await send(`/api/kb/${json(created).id}`, {
        method: 'PUT',
        body: { content: 'Still old' },
      });
      expect(updated.status).toBe(200);
      expect(updated.headers.get('link')).toBe(
        '</api/v1/kb/{id}>; rel="successor-version"'.replace('{id}', json(created).id),
      );
      expect(json(updated)).toMatchObject({ version: 2, content: 'Still old' });

      const list = await send('/api/kb?status=published&limit=200');
      expect(list.status).toBe(200);
      expect(list.headers.get('deprecation')).toBe('true');
      expect(json(list).articles.map((a: { id: string }) => a.id)).toContain(json(created).id);
    });

    it('answers bad input in the flat shape (D5)', async () => {
      const bad = await send('/api/kb', { method: 'POST', body: { title: '' } });
      expect(expectFlatError(bad, 400)).toMatchObject({ status: 400, code: 'invalid_request' });
      expectFlatError(
        await send(`/api/kb/${unknownId('kb')}`, { method: 'PUT', body: { title: 'x' } }),
        404,
      );
      expectFlatError(await send('/api/kb?limit=0'), 400);
    });

    it('serves only the operations the legacy table lists (P121)', async () => {
      const response = await send(`/api/kb/${unknownId('kb')}`);
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('PUT');
    });
  });
});
