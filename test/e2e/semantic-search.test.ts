import { expectFlatError, expectNestedError, fieldPaths } from '../support/error-shapes';
import { api, json } from '../support/http-client';
import { unknownId } from '../support/ids';
import { startTestService, type TestService } from '../support/local-service';
import {
  helpCenterPages,
  htmlPage,
  type LoopbackSite,
  startLoopbackSite,
} from '../support/loopback-site';
import { indexWebsite } from '../support/sync';
import { createKey, createTenant } from '../support/tenants';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';

/**
 * Semantic search (spec; D17, D21): chunks by meaning without an answer,
 * over a help center and a billing FAQ crawled from loopback sites.
 */
describe('Semantic search', () => {
  const clock = new TestClock();
  let service: TestService;
  const sites: LoopbackSite[] = [];
  let help: { id: string; chunks: number };
  let billing: { id: string; chunks: number };

  beforeAll(async () => {
    service = await startTestService({ env: { SVC_ALLOW_PRIVATE_URLS: 'true' }, clock });
    sites.push(
      await startLoopbackSite(helpCenterPages),
      await startLoopbackSite(() => ({
        '/': htmlPage('Billing FAQ', [
          'Invoices are emailed on the first day of each month.',
          'A refund appears on your next invoice within ten days.',
        ]),
      })),
    );
    const indexed = await Promise.all(
      sites.map((site, index) =>
        indexWebsite(service, service.adminKey, site.url('/'), `Site ${index}`),
      ),
    );
    [help, billing] = indexed.map(({ source, status }) => ({
      id: source.id as string,
      chunks: status.chunks_indexed as number,
    })) as [typeof help, typeof billing];
  });
  afterAll(async () => {
    await service.end();
    await Promise.all(sites.map((site) => site.close()));
  });
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  const search = (body: Record<string, unknown>, key = service.adminKey) =>
    api(service.url, '/api/v1/semantic-search', {
      method: 'POST',
      key,
      body: { org_id: service.orgId, ...body },
    });

  it('returns the best chunks, best first, each with the D21 fields', async () => {
    const response = await search({ query: 'Can I return a widget for a full refund?' });

    expect(response.status).toBe(200);
    const body = json(response);
    expect(Object.keys(body).sort()).toEqual(['chunks', 'metadata']);
    expect(body.metadata).toEqual({
      total_chunks_searched: help.chunks + billing.chunks,
      latency_ms: expect.any(Number),
      embedder: expect.any(String),
      rag_strategy: 'hybrid', // issue 10, P172: agents' default unless the caller names one
    });
    expect(Number.isInteger(body.metadata.latency_ms)).toBe(true);
    const chunks = body.chunks as Array<Record<string, any>>;
    expect(chunks.length).toBeGreaterThan(0);
    expect(chunks.length).toBeLessThanOrEqual(10); // D21: top_k defaults to 10
    for (const chunk of chunks) {
      expect(chunk).toEqual({
        chunk_id: expect.stringMatching(/^chk_/),
        text: expect.any(String),
        rank: expect.any(Number),
        score: expect.any(Number),
        similarity_score: expect.any(Number),
        document_id: expect.stringMatching(/^doc_/),
        document_title: expect.any(String),
        document_url: expect.any(String),
        data_source_id: expect.stringMatching(/^ds_/),
        heading_path: expect.any(Array),
      });
      expect(chunk.similarity_score).toBeGreaterThanOrEqual(0);
      expect(chunk.similarity_score).toBeLessThanOrEqual(1 + 1e-9);
    }
    // P172: best first by the hybrid ranking; similarity_score is the cosine, not the fused rank.
    expect(chunks[0]).toMatchObject({
      document_title: 'Returns policy',
      data_source_id: help.id,
      text: expect.stringContaining('return a widget within 30 days'),
    });
    expect(new Set(chunks.map((chunk) => chunk.chunk_id)).size).toBe(chunks.length);
  });

  it('returns the query embedding only when include_embedding is true', async () => {
    const without = json(await search({ query: 'shipping', include_embedding: false }));
    const withIt = json(await search({ query: 'shipping', include_embedding: true }));

    expect(without).not.toHaveProperty('query_embedding');
    const embedding = withIt.query_embedding as number[];
    expect(embedding).toHaveLength(service.runtime.dependencies.embedder.dimensions);
    expect(embedding.every((value) => typeof value === 'number')).toBe(true);
    expect(Math.hypot(...embedding)).toBeCloseTo(1, 6);
    expect(withIt.chunks).toEqual(without.chunks);
  });

  it('keeps to the data sources named in data_source_ids', async () => {
    const everything = json(await search({ query: 'refund', top_k: 100 }));
    const billingOnly = json(
      await search({ query: 'refund', top_k: 100, data_source_ids: [billing.id] }),
    );

    const sourcesOf = (body: Record<string, any>) =>
      new Set((body.chunks as Array<Record<string, any>>).map((chunk) => chunk.data_source_id));
    expect(sourcesOf(everything)).toEqual(new Set([help.id, billing.id]));
    expect(sourcesOf(billingOnly)).toEqual(new Set([billing.id]));
    expect(billingOnly.metadata.total_chunks_searched).toBe(billing.chunks);
    const unknown = json(await search({ query: 'refund', data_source_ids: [unknownId('ds')] }));
    expect(unknown).toMatchObject({ chunks: [], metadata: { total_chunks_searched: 0 } });
    const none = json(await search({ query: 'refund', data_source_ids: [] }));
    expect(none).toMatchObject({ chunks: [], metadata: { total_chunks_searched: 0 } });
  });

  it('returns at most top_k chunks, and none below similarity_threshold', async () => {
    const one = json(await search({ query: 'widget shipping warranty refund', top_k: 1 }));
    const all = json(await search({ query: 'widget shipping warranty refund', top_k: 100 }));
    const threshold = 0.2;
    const above = json(
      await search({
        query: 'widget shipping warranty refund',
        top_k: 100,
        similarity_threshold: threshold,
      }),
    );
    const exact = json(
      await search({ query: 'widget shipping', top_k: 100, similarity_threshold: 1 }),
    );

    expect(one.chunks).toHaveLength(1);
    expect(one.chunks[0]).toEqual(all.chunks[0]);
    const allChunks = all.chunks as Array<Record<string, any>>;
    expect(above.chunks).toEqual(allChunks.filter((chunk) => chunk.similarity_score >= threshold));
    expect(above.chunks.length).toBeGreaterThan(0);
    expect(above.chunks.length).toBeLessThan(allChunks.length);
    expect(exact.chunks).toEqual([]);
  });

  it.each([
    ['top_k 0', { top_k: 0 }, 'top_k'],
    ['top_k 101', { top_k: 101 }, 'top_k'],
    ['top_k 1.5', { top_k: 1.5 }, 'top_k'],
    ['similarity_threshold -0.01', { similarity_threshold: -0.01 }, 'similarity_threshold'],
    ['similarity_threshold 1.01', { similarity_threshold: 1.01 }, 'similarity_threshold'],
    ['an empty query', { query: '  ' }, 'query'],
    ['a query over 4,000 characters', { query: 'a'.repeat(4_001) }, 'query'],
    ['a malformed org_id', { org_id: 'org_1' }, 'org_id'],
    ['a malformed data source id', { data_source_ids: ['agt_1'] }, 'data_source_ids.0'],
    ['include_embedding "yes"', { include_embedding: 'yes' }, 'include_embedding'],
    ['an unknown rag_strategy', { rag_strategy: 'bm25' }, 'rag_strategy'],
    ['rag_strategy null', { rag_strategy: null }, 'rag_strategy'],
  ])('refuses %s with 400 naming the field (D17)', async (_name, change, field) => {
    const response = await search({ query: 'refund', ...change });

    const error = expectNestedError(response, 400, 'invalid_request');
    expect(fieldPaths(error)).toContain(field);
  });

  it('accepts the bounds themselves: top_k 1 and 100, thresholds 0 and 1', async () => {
    for (const bounds of [
      { top_k: 1, similarity_threshold: 0 },
      { top_k: 100, similarity_threshold: 1 },
    ]) {
      expect((await search({ query: 'refund', ...bounds })).status).toBe(200);
    }
  });

  it('refuses an org_id other than the caller organization with 403 (D21)', async () => {
    const other = await createTenant(service);

    const response = await search({ query: 'refund', org_id: other.orgId });
    const missing = await search({ query: 'refund', org_id: unknownId('org') });

    expectNestedError(response, 403, 'forbidden');
    expectNestedError(missing, 403, 'forbidden');
  });

  it('needs the Execute scope (D21)', async () => {
    const execute = await createKey(service, service.orgId, { scopes: ['Execute'] });
    const read = await createKey(service, service.orgId, { scopes: ['Read'] });

    expect((await search({ query: 'refund' }, execute.key)).status).toBe(200);
    const refused = expectNestedError(
      await search({ query: 'refund' }, read.key),
      403,
      'forbidden',
    );
    expect(refused.details).toEqual({ required_scope: 'Execute', current_scopes: ['Read'] });
  });

  it('never returns chunks of a deleted data source', async () => {
    const site = await startLoopbackSite(() => ({
      '/': htmlPage('Llama grooming', ['Brush the llama fleece gently every week.']),
    }));
    sites.push(site);
    const { source } = await indexWebsite(service, service.adminKey, site.url('/'), 'Llamas');
    const before = json(await search({ query: 'llama fleece brush' }));
    expect(before.chunks[0]).toMatchObject({ data_source_id: source.id });

    const deleted = await api(service.url, `/api/v1/data-sources/${source.id}`, {
      method: 'DELETE',
      key: service.adminKey,
    });

    expect(deleted.status).toBe(204);
    const after = json(await search({ query: 'llama fleece brush', top_k: 100 }));
    expect(after.chunks.map((chunk: Record<string, any>) => chunk.data_source_id)).not.toContain(
      source.id,
    );
    expect(after.metadata.total_chunks_searched).toBe(help.chunks + billing.chunks);
  });

  describe('strategies (issue 10, P172)', () => {
    const query = 'How long does express shipping take?';
    const idsOf = (body: Record<string, any>) =>
      (body.chunks as Array<Record<string, any>>).map((chunk) => chunk.chunk_id);

    it("ranks with hybrid, agents' default (D20, P8), unless a strategy is named", async () => {
      const byDefault = json(await search({ query, top_k: 5 }));
      const hybrid = json(await search({ query, top_k: 5, rag_strategy: 'hybrid' }));

      expect(byDefault.metadata.rag_strategy).toBe('hybrid');
      expect(idsOf(byDefault)).toEqual(idsOf(hybrid));
      expect(byDefault.chunks[0].text).toContain('Express shipping arrives the next business day');
    });

    it.each(['similarity', 'hybrid', 'mmr', 'rerank'])(
      'runs %s when named, says so, and keeps the cosine as similarity_score',
      async (strategy) => {
        const response = await search({
          query,
          top_k: 4,
          rag_strategy: strategy,
          include_embedding: true,
        });

        expect(response.status).toBe(200);
        const body = json(response);
        expect(body.metadata.rag_strategy).toBe(strategy);
        expect(body.query_embedding).toEqual(expect.any(Array));
        const chunks = body.chunks as Array<Record<string, any>>;
        expect(chunks.length).toBeGreaterThan(0);
        expect(chunks.length).toBeLessThanOrEqual(4);
        const similarity = json(await search({ query, top_k: 100, rag_strategy: 'similarity' }));
        const cosine = new Map(
          (similarity.chunks as Array<Record<string, any>>).map((chunk) => [
            chunk.chunk_id,
            chunk.similarity_score,
          ]),
        );
        for (const chunk of chunks) {
          expect(chunk.similarity_score).toBeCloseTo(cosine.get(chunk.chunk_id) ?? Number.NaN, 9);
        }
        if (strategy === 'similarity') {
          const scores = chunks.map((chunk) => chunk.similarity_score);
          expect(scores).toEqual([...scores].sort((a, b) => b - a));
        }
      },
    );

    it.each(['similarity', 'hybrid', 'mmr', 'rerank'])(
      'lists %s chunks in the order of their rank and score (P214, issue 23 item 2)',
      async (strategy) => {
        const body = json(await search({ query, top_k: 20, rag_strategy: strategy }));

        const chunks = body.chunks as Array<Record<string, any>>;
        expect(chunks.length).toBeGreaterThan(3);
        expect(chunks.map((chunk) => chunk.rank)).toEqual(chunks.map((_, index) => index + 1));
        const byScore = [...chunks].sort((a, b) => b.score - a.score || a.rank - b.rank);
        expect(byScore.map((chunk) => chunk.chunk_id)).toEqual(idsOf(body));
        if (strategy === 'similarity') {
          for (const chunk of chunks) expect(chunk.score).toBe(chunk.similarity_score);
        }
      },
    );

    it('applies similarity_threshold to the cosine, whatever the strategy', async () => {
      const all = json(await search({ query, top_k: 20, rag_strategy: 'rerank' }));
      const threshold = 0.2;
      const bounded = json(
        await search({ query, top_k: 20, rag_strategy: 'rerank', similarity_threshold: threshold }),
      );

      const expected = (all.chunks as Array<Record<string, any>>)
        .filter((chunk) => chunk.similarity_score >= threshold)
        .map((chunk) => chunk.chunk_id);
      expect(idsOf(bounded)).toEqual(expected);
    });

    it('takes the strategy on the legacy path as ragStrategy (D7, D8)', async () => {
      const legacy = await api(service.url, '/api/semantic-search', {
        method: 'POST',
        key: service.adminKey,
        body: { query, orgId: service.orgId, topK: 3, ragStrategy: 'mmr' },
      });
      const v1 = json(await search({ query, top_k: 3, rag_strategy: 'mmr' }));

      expect(legacy.status).toBe(200);
      const body = json(legacy);
      expect(body.metadata.rag_strategy).toBe('mmr');
      expect(idsOf(body)).toEqual(idsOf(v1));
      const refused = await api(service.url, '/api/semantic-search', {
        method: 'POST',
        key: service.adminKey,
        body: { query, orgId: service.orgId, ragStrategy: 'nearest' },
      });
      expectFlatError(refused, 400);
    });
  });

  it('answers the legacy path the same, from camelCase fields (D7, D8)', async () => {
    const v1 = await search({ query: 'express shipping', top_k: 3, data_source_ids: [help.id] });
    const legacy = await api(service.url, '/api/semantic-search', {
      method: 'POST',
      key: service.adminKey,
      body: { query: 'express shipping', orgId: service.orgId, topK: 3, dataSourceIds: [help.id] },
    });

    expect(legacy.status).toBe(200);
    expect(legacy.headers.get('deprecation')).toBe('true');
    const { metadata: legacyMetadata, ...legacyRest } = json(legacy);
    const { metadata: v1Metadata, ...v1Rest } = json(v1);
    expect(legacyRest).toEqual(v1Rest);
    expect(legacyMetadata.total_chunks_searched).toBe(v1Metadata.total_chunks_searched);
    const refused = await api(service.url, '/api/semantic-search', {
      method: 'POST',
      key: service.adminKey,
      body: { query: 'express shipping', orgId: service.orgId, topK: 0 },
    });
    expectFlatError(refused, 400);
  });
});
