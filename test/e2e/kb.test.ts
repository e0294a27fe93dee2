import { createHash } from 'node:crypto';
import { KB_ARTICLE_LIMITS, kbDataSourceIdFor } from '../../layers/core/domain/kb-article';
import { expectFlatError, expectNestedError, fieldPaths } from '../support/error-shapes';
import { api, json } from '../support/http-client';
import { unknownId } from '../support/ids';
import { startTestService, type TestService } from '../support/local-service';
import { createKey, createTenant, type TestKey } from '../support/tenants';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';
import { createTestUser, signedIn } from '../support/web-session';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * Knowledge-base articles over HTTP (issue 11 item 1; D32, D9, D13, D17):
 * the v1 and legacy routes, versions, the status filter and pagination (D2),
 * scopes and roles, other tenants, and bad input. What published articles
 * are to agents is in kb-retrieval.test.ts.
 */
describe('Knowledge-base articles (D32)', () => {
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
        data_source_id: kbDataSourceIdFor(service.orgId),
        created_at: expect.stringMatching(ISO_MS),
        updated_at: article.created_at,
      });
      const read = await send(`/api/v1/kb/${article.id}`);
      expect({ status: read.status, body: read.body }).toEqual({ status: 200, body: article });
    });

    it('lists the built-in kb data source among the data sources, and refuses to change or delete it (P115)', async () => {
      const kbSourceId = kbDataSourceIdFor(service.orgId);
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
      const tenant = await createTenant(service, { name: 'Racing org' });
      const responses = await Promise.all(
        Array.from({ length: 6 }, (_, index) =>
          index % 2 === 0
            ? api(service.url, '/api/v1/kb', {
                key: tenant.key,
                method: 'POST',
                body: { title: `A${index}`, content: 'x' },
              })
            : api(service.url, '/api/v1/kb', { key: tenant.key }),
        ),
      );

      expect(responses.map((response) => response.status).sort()).toEqual([
        200, 200, 200, 201, 201, 201,
      ]);
      const sources = json(
        await api(service.url, '/api/v1/data-sources', { key: tenant.key }),
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
      const text = await api(service.url, '/api/v1/kb', {
        method: 'POST',
        key,
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

  describe('versions (D32)', () => {
    it('records every PUT as version n+1, keeping the fields not sent, and lists versions newest first', async () => {
      const article = await create({
        title: 'Shipping',
        content: 'Ships in 2 days.',
        tags: ['logistics'],
      });
      clock.advance(1_000);
      const second = await send(`/api/v1/kb/${article.id}`, {
        method: 'PUT',
        body: { content: 'Ships in 1 day.' },
      });
      clock.advance(1_000);
      const third = await send(`/api/v1/kb/${article.id}`, {
        method: 'PUT',
        body: { status: 'published', tags: [] },
      });

      expect(second.status).toBe(200);
      expect(json(second)).toMatchObject({
        version: 2,
        title: 'Shipping',
        content: 'Ships in 1 day.',
        tags: ['logistics'],
        status: 'draft',
      });
      expect(json(third)).toMatchObject({
        version: 3,
        content: 'Ships in 1 day.',
        tags: [],
        status: 'published',
        created_at: article.created_at,
      });
      expect(json(third).updated_at > article.updated_at).toBe(true);

      const versions = await send(`/api/v1/kb/${article.id}/versions`);
      expect(versions.status).toBe(200);
      expect(json(versions)).toEqual({
        versions: [
          expect.objectContaining({
            article_id: article.id,
            version: 3,
            status: 'published',
            content_length: 15,
          }),
          expect.objectContaining({ version: 2, status: 'draft', tags: ['logistics'] }),
          expect.objectContaining({
            version: 1,
            content_length: 16,
            created_at: article.created_at,
          }),
        ],
        total: 3,
        limit: 50,
        offset: 0,
      });
      expect(json(versions).versions[0]).not.toHaveProperty('content');
      const page = json(await send(`/api/v1/kb/${article.id}/versions?limit=1&offset=1`));
      expect(page).toMatchObject({
        total: 3,
        limit: 1,
        offset: 1,
        versions: [expect.objectContaining({ version: 2 })],
      });

      const first = await send(`/api/v1/kb/${article.id}/versions/1`);
      expect(json(first)).toEqual({
        article_id: article.id,
        version: 1,
        title: 'Shipping',
        content: 'Ships in 2 days.',
        tags: ['logistics'],
        status: 'draft',
        created_at: article.created_at,
      });
      expect(json(await send(`/api/v1/kb/${article.id}/versions/3`))).toMatchObject({
        version: 3,
        content: 'Ships in 1 day.',
      });
      expectNestedError(await send(`/api/v1/kb/${article.id}/versions/4`), 404, 'not_found');
      for (const bad of ['0', '-1', 'abc', '1.5', '01']) {
        const response = await send(`/api/v1/kb/${article.id}/versions/${bad}`);
        expect(fieldPaths(expectNestedError(response, 400, 'invalid_request'))).toEqual([
          'version',
        ]);
      }
    });

    it('gives concurrent updates distinct version numbers (P21)', async () => {
      const article = await create({ title: 'Busy', content: 'v1' });
      const responses = await Promise.all(
        ['a', 'b', 'c'].map((text) =>
          send(`/api/v1/kb/${article.id}`, { method: 'PUT', body: { content: text } }),
        ),
      );
      const ok = responses.filter((response) => response.status === 200);
      for (const response of responses.filter((r) => r.status !== 200))
        expectNestedError(response, 409, 'invalid_request');
      const numbers = ok.map((response) => json(response).version).sort();
      expect(new Set(numbers).size).toBe(ok.length);
      const history = json(await send(`/api/v1/kb/${article.id}/versions`));
      expect(history.total).toBe(1 + ok.length);
      expect(history.versions.map((v: { version: number }) => v.version)).toEqual(
        Array.from({ length: 1 + ok.length }, (_, i) => 1 + ok.length - i),
      );
    });

    it('writes a PUT with expected_version only while the article is still at that version (P253)', async () => {
      const article = await create({ title: 'Hours', content: 'Open 9 to 5.', tags: ['store'] });
      const saved = await send(`/api/v1/kb/${article.id}`, {
        method: 'PUT',
        body: { content: 'Open 9 to 6.', expected_version: 1 },
      });
      expect(json(saved)).toMatchObject({ version: 2, content: 'Open 9 to 6.' });

      // A second editor who started from version 1 is refused, and nothing is recorded.
      const stale = await send(`/api/v1/kb/${article.id}`, {
        method: 'PUT',
        body: { content: 'Open 8 to 5.', expected_version: 1 },
      });
      expect(expectNestedError(stale, 409, 'invalid_request').details).toEqual({
        reason: 'version_conflict',
        current_version: 2,
      });
      expect(json(await send(`/api/v1/kb/${article.id}`))).toMatchObject({
        version: 2,
        content: 'Open 9 to 6.',
      });
      expect(json(await send(`/api/v1/kb/${article.id}/versions`)).total).toBe(2);

      const legacy = await send(`/api/kb/${article.id}`, {
        method: 'PUT',
        body: { title: 'Opening hours', expected_version: 1 },
      });
      expect(expectFlatError(legacy, 409).details).toEqual({
        reason: 'version_conflict',
        current_version: 2,
      });
      for (const bad of [0, -1, 1.5, '2']) {
        const response = await send(`/api/v1/kb/${article.id}`, {
          method: 'PUT',
          body: { expected_version: bad },
        });
        expect(fieldPaths(expectNestedError(response, 400, 'invalid_request'))).toEqual([
          'expected_version',
        ]);
      }
    });

    it('refuses all but one of concurrent PUTs made from the same version (P253)', async () => {
      const article = await create({ title: 'Contested', content: 'v1' });
      const responses = await Promise.all(
        ['a', 'b', 'c'].map((text) =>
          send(`/api/v1/kb/${article.id}`, {
            method: 'PUT',
            body: { content: text, expected_version: 1 },
          }),
        ),
      );

      expect(responses.map((response) => response.status).sort()).toEqual([200, 409, 409]);
      expect(json(await send(`/api/v1/kb/${article.id}/versions`)).total).toBe(2);
    });

    it('deletes an article with its versions', async () => {
      const article = await create({ title: 'Temporary', content: 'gone soon' });
      await send(`/api/v1/kb/${article.id}`, { method: 'PUT', body: { title: 'Temporary 2' } });

      const deleted = await send(`/api/v1/kb/${article.id}`, { method: 'DELETE' });
      expect({ status: deleted.status, text: deleted.text }).toEqual({ status: 204, text: '' });
      expectNestedError(await send(`/api/v1/kb/${article.id}`), 404, 'not_found');
      expectNestedError(await send(`/api/v1/kb/${article.id}/versions/1`), 404, 'not_found');
      expectNestedError(
        await send(`/api/v1/kb/${article.id}`, { method: 'DELETE' }),
        404,
        'not_found',
      );
      const stored = await service.runtime.dependencies.kbArticles.listVersions(
        service.orgId,
        article.id,
      );
      expect(stored).toEqual([]);
    });
  });

  describe('lists (D2)', () => {
    it('filters by status, pages newest first, and leaves the content out (P118)', async () => {
      const tenant = await createTenant(service, { name: 'Lists org' });
      const as = (path: string, body?: unknown) =>
        api(service.url, path, { key: tenant.key, ...(body ? { method: 'POST', body } : {}) });
      for (const [index, status] of [
        'draft',
        'published',
        'draft',
        'published',
        'published',
      ].entries()) {
        clock.advance(10);
        expect(
          (await as('/api/v1/kb', { title: `Article ${index}`, content: `Body ${index}`, status }))
            .status,
        ).toBe(201);
      }

      const all = json(await as('/api/v1/kb'));
      expect(all).toMatchObject({
        total: 5,
        limit: 50,
        offset: 0,
        data_source_id: kbDataSourceIdFor(tenant.orgId),
      });
      expect(all.articles.map((a: { title: string }) => a.title)).toEqual([
        'Article 4',
        'Article 3',
        'Article 2',
        'Article 1',
        'Article 0',
      ]);
      expect(all.articles[0]).toEqual({
        id: expect.stringMatching(/^kb_/),
        title: 'Article 4',
        tags: [],
        status: 'published',
        version: 1,
        data_source_id: kbDataSourceIdFor(tenant.orgId),
        content_length: 6,
        created_at: expect.stringMatching(ISO_MS),
        updated_at: expect.stringMatching(ISO_MS),
      });

      const published = json(await as('/api/v1/kb?status=published&limit=2&offset=1'));
      expect(published).toMatchObject({ total: 3, limit: 2, offset: 1 });
      expect(published.articles.map((a: { title: string }) => a.title)).toEqual([
        'Article 3',
        'Article 1',
      ]);
      expect(json(await as('/api/v1/kb?status=draft')).total).toBe(2);
      expect(json(await as('/api/v1/kb?offset=5')).articles).toEqual([]);
    });

    it('filters by one tag, matched whole, alone or with the status (P252)', async () => {
      const tenant = await createTenant(service, { name: 'Tags org' });
      const as = (path: string, body?: unknown) =>
        api(service.url, path, { key: tenant.key, ...(body ? { method: 'POST', body } : {}) });
      for (const [title, tags, status] of [
        ['Refunds', ['billing', 'policy'], 'published'],
        ['Invoices', ['billing'], 'draft'],
        ['Billing cycles', ['billing-cycle'], 'published'],
        ['Privacy', ['policy'], 'published'],
      ] as const) {
        clock.advance(10);
        expect((await as('/api/v1/kb', { title, content: title, tags, status })).status).toBe(201);
      }
      const titles = async (query: string) => {
        const response = await as(`/api/v1/kb?${query}`);
        expect(response.status).toBe(200);
        return json(response).articles.map((a: { title: string }) => a.title);
      };

      expect(await titles('tag=billing')).toEqual(['Invoices', 'Refunds']);
      expect(await titles('tag=billing&status=published')).toEqual(['Refunds']);
      expect(await titles('tag=%20policy%20')).toEqual(['Privacy', 'Refunds']);
      expect(await titles('tag=bill')).toEqual([]);
      expect(await titles('tag=Billing')).toEqual([]);
      expect(json(await as('/api/v1/kb?tag=billing&limit=1'))).toMatchObject({
        total: 2,
        articles: [expect.objectContaining({ title: 'Invoices' })],
      });
      for (const bad of ['tag=', `tag=${'x'.repeat(101)}`]) {
        const response = await as(`/api/v1/kb?${bad}`);
        expect(fieldPaths(expectNestedError(response, 400, 'invalid_request'))).toContain('tag');
      }
    });

    it.each([
      ['status=archived', 'status'],
      ['limit=0', 'limit'],
      ['limit=201', 'limit'],
      ['offset=-1', 'offset'],
      ['limit=ten', 'limit'],
    ])('refuses ?%s with 400 naming the parameter (D2)', async (query, field) => {
      const response = await send(`/api/v1/kb?${query}`);
      expect(fieldPaths(expectNestedError(response, 400, 'invalid_request'))).toContain(field);
    });

    it('refuses unknown query parameters (P2)', async () => {
      expectNestedError(await send('/api/v1/kb?label=x'), 400, 'invalid_request');
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

  describe('tenants, scopes and roles', () => {
    it('answers another organization’s article as if it did not exist', async () => {
      const article = await create({ title: 'Ours', content: 'Private', status: 'published' });
      const theirs = (path: string, options: { method?: string; body?: unknown } = {}) =>
        api(service.url, path, { key: other.key, ...options });

      expectNestedError(await theirs(`/api/v1/kb/${article.id}`), 404, 'not_found');
      expectNestedError(await theirs(`/api/v1/kb/${article.id}/versions`), 404, 'not_found');
      expectNestedError(await theirs(`/api/v1/kb/${article.id}/versions/1`), 404, 'not_found');
      expectNestedError(
        await theirs(`/api/v1/kb/${article.id}`, { method: 'PUT', body: { title: 'Mine' } }),
        404,
        'not_found',
      );
      expectNestedError(
        await theirs(`/api/v1/kb/${article.id}`, { method: 'DELETE' }),
        404,
        'not_found',
      );
      expectFlatError(
        await theirs(`/api/kb/${article.id}`, { method: 'PUT', body: { title: 'Mine' } }),
        404,
      );
      const list = json(await theirs('/api/v1/kb?limit=200'));
      expect(list.articles.map((a: { id: string }) => a.id)).not.toContain(article.id);
      expect(list.data_source_id).toBe(kbDataSourceIdFor(other.orgId));
      expect(json(await send(`/api/v1/kb/${article.id}`))).toMatchObject({
        title: 'Ours',
        version: 1,
      });
    });

    it('takes Read to read and Write to change (D9)', async () => {
      const read = await createKey(service, service.orgId, { scopes: ['Read'] });
      const write = await createKey(service, service.orgId, { scopes: ['Write'] });
      const execute = await createKey(service, service.orgId, { scopes: ['Execute'] });
      const article = await create({ title: 'Scoped', content: 'x' });

      expect(
        (await api(service.url, `/api/v1/kb/${article.id}/versions`, { key: read.key })).status,
      ).toBe(200);
      const refused = await api(service.url, '/api/v1/kb', {
        key: read.key,
        method: 'POST',
        body: { title: 'T', content: 'x' },
      });
      expect(expectNestedError(refused, 403, 'forbidden').details).toEqual({
        required_scope: 'Write',
        current_scopes: ['Read'],
      });
      expect(
        (
          await api(service.url, '/api/v1/kb', {
            key: write.key,
            method: 'POST',
            body: { title: 'T', content: 'x' },
          })
        ).status,
      ).toBe(201);
      expect(
        (await api(service.url, `/api/v1/kb/${article.id}`, { key: write.key, method: 'DELETE' }))
          .status,
      ).toBe(204);
      expectNestedError(
        await api(service.url, '/api/v1/kb', { key: execute.key }),
        403,
        'forbidden',
      );
      expect(
        expectFlatError(await api(service.url, '/api/kb', { key: execute.key }), 403),
      ).toMatchObject({ required_scope: 'Read' });
    });

    it('lets `train` edit articles and `readonly` only read them (D13)', async () => {
      const trainer = await signedIn(service, await createTestUser(service, { role: 'train' }));
      const viewer = await signedIn(service, await createTestUser(service, { role: 'readonly' }));

      const created = await trainer.request('/api/v1/kb', {
        method: 'POST',
        body: { title: 'By a trainer', content: 'x' },
      });
      expect(created.status).toBe(201);
      const id = json(created).id;
      expect(
        (
          await trainer.request(`/api/v1/kb/${id}`, {
            method: 'PUT',
            body: { status: 'published' },
          })
        ).status,
      ).toBe(200);
      expect((await viewer.request(`/api/v1/kb/${id}/versions/2`)).status).toBe(200);
      const refused = await viewer.request(`/api/v1/kb/${id}`, {
        method: 'PUT',
        body: { title: 'No' },
      });
      expect(expectNestedError(refused, 403, 'forbidden').details).toEqual({
        required_role: 'train',
        current_role: 'readonly',
      });
      expect((await trainer.request(`/api/v1/kb/${id}`, { method: 'DELETE' })).status).toBe(204);
    });
  });
});
