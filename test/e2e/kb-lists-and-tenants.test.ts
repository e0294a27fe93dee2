import { kbDataSourceIdFor } from '../../layers/core/domain/kb-article';
import { expectFlatError, expectNestedError, fieldPaths } from '../support/error-shapes';
import { api, json } from '../support/http-client';
import { createKey, createTenant } from '../support/tenants';
import { createTestUser, signedIn } from '../support/web-session';
import { ISO_MS, kbSuite } from './kb-suite';

/**
 * Knowledge-base articles over HTTP (issue 11 item 1; D32, D9, D13, D17):
 * the v1 and legacy routes, versions, the status filter and pagination (D2),
 * scopes and roles, other tenants, and bad input. What published articles
 * are to agents is in kb-retrieval.test.ts.
 */
describe('Knowledge-base articles (D32)', () => {
  const { clock, send, create, service, other } = kbSuite();

  describe('lists (D2)', () => {
    it('filters by status, pages newest first, and leaves the content out (P118)', async () => {
      const tenant = await createTenant(service(), { name: 'Lists org' });
      const as = (path: string, body?: unknown) =>
        api(service().url, path, { key: tenant.key, ...(body ? { method: 'POST', body } : {}) });
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
      const tenant = await createTenant(service(), { name: 'Tags org' });
      const as = (path: string, body?: unknown) =>
        api(service().url, path, { key: tenant.key, ...(body ? { method: 'POST', body } : {}) });
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

  describe('tenants, scopes and roles', () => {
    it('answers another organization’s article as if it did not exist', async () => {
      const article = await create({ title: 'Ours', content: 'Private', status: 'published' });
      const theirs = (path: string, options: { method?: string; body?: unknown } = {}) =>
        api(service().url, path, { key: other().key, ...options });

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
      expect(list.data_source_id).toBe(kbDataSourceIdFor(other().orgId));
      expect(json(await send(`/api/v1/kb/${article.id}`))).toMatchObject({
        title: 'Ours',
        version: 1,
      });
    });

    it('takes Read to read and Write to change (D9)', async () => {
      const read = await createKey(service(), service().orgId, { scopes: ['Read'] });
      const write = await createKey(service(), service().orgId, { scopes: ['Write'] });
      const execute = await createKey(service(), service().orgId, { scopes: ['Execute'] });
      const article = await create({ title: 'Scoped', content: 'x' });

      expect(
        (await api(service().url, `/api/v1/kb/${article.id}/versions`, { key: read.key })).status,
      ).toBe(200);
      const refused = await api(service().url, '/api/v1/kb', {
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
          await api(service().url, '/api/v1/kb', {
            key: write.key,
            method: 'POST',
            body: { title: 'T', content: 'x' },
          })
        ).status,
      ).toBe(201);
      expect(
        (await api(service().url, `/api/v1/kb/${article.id}`, { key: write.key, method: 'DELETE' }))
          .status,
      ).toBe(204);
      expectNestedError(
        await api(service().url, '/api/v1/kb', { key: execute.key }),
        403,
        'forbidden',
      );
      expect(
        expectFlatError(await api(service().url, '/api/kb', { key: execute.key }), 403),
      ).toMatchObject({ required_scope: 'Read' });
    });

    it('lets `train` edit articles and `readonly` only read them (D13)', async () => {
      const trainer = await signedIn(service(), await createTestUser(service(), { role: 'train' }));
      const viewer = await signedIn(
        service(),
        await createTestUser(service(), { role: 'readonly' }),
      );

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
