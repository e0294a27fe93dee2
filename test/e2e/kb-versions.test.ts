import { expectFlatError, expectNestedError, fieldPaths } from '../support/error-shapes';
import { json } from '../support/http-client';
import { kbSuite } from './kb-suite';

/**
 * Knowledge-base articles over HTTP (issue 11 item 1; D32, D9, D13, D17):
 * the v1 and legacy routes, versions, the status filter and pagination (D2),
 * scopes and roles, other tenants, and bad input. What published articles
 * are to agents is in kb-retrieval.test.ts.
 */
describe('Knowledge-base articles (D32)', () => {
  const { clock, send, create, service } = kbSuite();

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
      const stored = await service().runtime.dependencies.kbArticles.listVersions(
        service().orgId,
        article.id,
      );
      expect(stored).toEqual([]);
    });
  });
});
