import {
  BulkIndexingError,
  SearchUnavailableError,
} from '../../../../layers/core/adapters/opensearch/errors';
import { chunkIndexDefinition } from '../../../../layers/core/adapters/opensearch/index-definition';
import { OpenSearchRetrievalIndex } from '../../../../layers/core/adapters/opensearch/opensearch-retrieval-index';
import { expectDocumentedRequests } from './documented-request-shapes';
import {
  clientFor,
  fixture,
  jsonOf,
  ndjsonOf,
  type RecordingOpenSearch,
  routes,
  startRecordingOpenSearch,
} from './recording-opensearch';

import {
  chunk,
  DS_A,
  EMBEDDER,
  existingIndex,
  INDEX,
  ORG,
  OTHERS,
  SECOND,
} from './retrieval-index-fixtures';

describe('Class: OpenSearchRetrievalIndex (writes)', () => {
  let server: RecordingOpenSearch;
  let index: OpenSearchRetrievalIndex;

  beforeEach(async () => {
    server = await startRecordingOpenSearch();
    index = new OpenSearchRetrievalIndex({ client: clientFor(server) });
  });

  afterEach(async () => {
    // Every request it sent has the shape OpenSearch's documentation gives it.
    const requests = [...server.requests];
    await server.close();
    expectDocumentedRequests(requests);
  });

  describe('Method: upsert', () => {
    it('creates the missing index, then bulk-indexes each chunk by id, routed by organization', async () => {
      // Prepare
      server.respondWith(
        routes(
          ['HEAD', `/${INDEX}`, { status: 404 }],
          ['PUT', `/${INDEX}`, { body: fixture('create-index') }],
          ['POST', '/_bulk', { body: fixture('bulk-created') }],
          ['POST', `/${OTHERS}/_delete_by_query`, { body: fixture('delete-by-query-nothing') }],
        ),
      );

      // Act
      await index.upsert([chunk(), SECOND]);

      // Assess
      const [head, create, ...rest] = server.requests;
      expect(head?.method).toBe('HEAD');
      expect(create?.method).toBe('PUT');
      expect(jsonOf(create)).toEqual(
        chunkIndexDefinition({ id: EMBEDDER, dimensions: 3 }) as unknown,
      );
      const bulk = rest.find((request) => request.path === '/_bulk');
      expect(bulk?.query).toEqual({ refresh: 'wait_for' });
      expect(bulk?.headers['content-type']).toMatch(
        /application\/(x-ndjson|vnd\.opensearch\+x-ndjson)/,
      );
      expect(ndjsonOf(bulk)).toEqual([
        { index: { _index: INDEX, _id: chunk().chunk_id, routing: ORG } },
        { ...chunk(), heading_path: ['Refunds', 'Timing'], embedding: [0.6, 0.8, 0] },
        { index: { _index: INDEX, _id: SECOND.chunk_id, routing: ORG } },
        { ...SECOND, heading_path: [], embedding: [-0.6, 0, 0.8] },
      ]);
    });

    it("removes the same chunk ids from the other embedders' indexes", async () => {
      // Prepare
      server.respondWith(
        routes(
          ...existingIndex,
          ['POST', '/_bulk', { body: fixture('bulk-created') }],
          ['POST', `/${OTHERS}/_delete_by_query`, { body: fixture('delete-by-query-nothing') }],
        ),
      );

      // Act
      await index.upsert([chunk(), SECOND]);

      // Assess
      const cleanup = server.requests.find((request) => request.path.endsWith('_delete_by_query'));
      expect(cleanup?.path).toBe(`/${OTHERS}/_delete_by_query`);
      expect(cleanup?.query).toEqual({
        routing: ORG,
        refresh: 'true',
        conflicts: 'proceed',
        allow_no_indices: 'true',
        ignore_unavailable: 'true',
      });
      expect(jsonOf(cleanup)).toEqual({
        query: {
          bool: {
            filter: [
              { term: { org_id: ORG } },
              { ids: { values: [chunk().chunk_id, SECOND.chunk_id] } },
            ],
          },
        },
      });
    });

    it('checks an existing index once, without recreating or changing it', async () => {
      // Prepare
      server.respondWith(
        routes(
          ...existingIndex,
          ['POST', '/_bulk', { body: fixture('bulk-created') }],
          ['POST', `/${OTHERS}/_delete_by_query`, { body: fixture('delete-by-query-nothing') }],
        ),
      );

      // Act
      await index.upsert([chunk()]);
      await index.upsert([SECOND]);

      // Assess
      const calls = server.requests.map((request) => `${request.method} ${request.path}`);
      expect(calls.filter((call) => call === `HEAD /${INDEX}`)).toHaveLength(1);
      expect(calls.filter((call) => call === `GET /${INDEX}/_mapping`)).toHaveLength(1);
      expect(calls.filter((call) => call.startsWith('PUT'))).toEqual([]);
      expect(calls.filter((call) => call === 'POST /_bulk')).toHaveLength(2);
    });

    it('splits large upserts into bulk requests of at most 5 MiB, waiting for a refresh only on the last', async () => {
      // Prepare
      server.respondWith(
        routes(
          ...existingIndex,
          ['POST', '/_bulk', { body: fixture('bulk-created') }],
          ['POST', `/${OTHERS}/_delete_by_query`, { body: fixture('delete-by-query-nothing') }],
        ),
      );
      const big = Array.from({ length: 7 }, (_, n) =>
        chunk({ chunk_id: `chk_big${n}`, text: 'x'.repeat(1024 * 1024) }),
      );

      // Act
      await index.upsert(big);

      // Assess
      const bulks = server.requests.filter((request) => request.path === '/_bulk');
      expect(bulks.length).toBe(2);
      for (const bulk of bulks)
        expect(Buffer.byteLength(bulk.body)).toBeLessThanOrEqual(5 * 1024 * 1024);
      expect(bulks.map((bulk) => bulk.query.refresh)).toEqual(['false', 'wait_for']);
      const ids = bulks.flatMap((bulk) =>
        ndjsonOf(bulk)
          .filter((line) => 'index' in line)
          .map((line) => line.index._id),
      );
      expect(ids).toEqual(big.map((item) => item.chunk_id));
    });

    it('names the chunks a partial bulk failure refused', async () => {
      // Prepare
      server.respondWith(
        routes(
          ...existingIndex,
          ['POST', '/_bulk', { body: fixture('bulk-partial-failure') }],
          ['POST', `/${OTHERS}/_delete_by_query`, { body: fixture('delete-by-query-nothing') }],
        ),
      );

      // Act
      const upserting = index.upsert([chunk(), SECOND]);

      // Assess
      await expect(upserting).rejects.toThrow(BulkIndexingError);
      await expect(upserting).rejects.toMatchObject({
        failures: [
          {
            chunkId: SECOND.chunk_id,
            status: 400,
            type: 'mapper_parsing_exception',
          },
        ],
      });
      await expect(upserting).rejects.toThrow(
        /chk_01JAAAAAAAAAAAAAAAAAAAAAA2 \(400 mapper_parsing/,
      );
    });

    it('reports a bulk the cluster rejected as busy as unavailable, naming the chunks', async () => {
      // Prepare
      server.respondWith(
        routes(
          ...existingIndex,
          ['POST', '/_bulk', { body: fixture('bulk-rejected') }],
          ['POST', `/${OTHERS}/_delete_by_query`, { body: fixture('delete-by-query-nothing') }],
        ),
      );

      // Act
      const upserting = index.upsert([chunk(), SECOND]);

      // Assess
      await expect(upserting).rejects.toThrow(SearchUnavailableError);
      await expect(upserting).rejects.toThrow(
        /chk_01JAAAAAAAAAAAAAAAAAAAAAA1, chk_01JAAAAAAAAAAAAAAAAAAAAAA2/,
      );
    });

    it('refuses chunks of one embedder with vectors of different sizes, before any request', async () => {
      // Act
      const upserting = index.upsert([chunk(), chunk({ chunk_id: 'chk_2', embedding: [1, 0] })]);

      // Assess
      await expect(upserting).rejects.toThrow(/chk_2 has 2 dimensions/);
      expect(server.requests).toEqual([]);
    });

    it('sends nothing for no chunks', async () => {
      await index.upsert([]);
      expect(server.requests).toEqual([]);
    });
  });

  describe('Method: deleteDocument', () => {
    it('deletes by query in every chunk index, on the organization shard, filtered by org, source and document', async () => {
      // Prepare
      server.respondWith(
        routes(['POST', '/svc-chunks-*/_delete_by_query', { body: fixture('delete-by-query') }]),
      );

      // Act
      await index.deleteDocument(ORG, DS_A, 'doc_01JDOCAAAAAAAAAAAAAAAAAAAA');

      // Assess
      const [request] = server.requests;
      expect(request?.query).toEqual({
        routing: ORG,
        refresh: 'true',
        conflicts: 'proceed',
        allow_no_indices: 'true',
        ignore_unavailable: 'true',
      });
      expect(jsonOf(request)).toEqual({
        query: {
          bool: {
            filter: [
              { term: { org_id: ORG } },
              { term: { data_source_id: DS_A } },
              { term: { document_id: 'doc_01JDOCAAAAAAAAAAAAAAAAAAAA' } },
            ],
          },
        },
      });
    });

    it('raises the failures delete-by-query reports (a 429 inside: unavailable)', async () => {
      // Prepare
      server.respondWith(
        routes([
          'POST',
          '/svc-chunks-*/_delete_by_query',
          { body: fixture('delete-by-query-failures') },
        ]),
      );

      // Act
      const deleting = index.deleteDocument(ORG, DS_A, 'doc_01JDOCAAAAAAAAAAAAAAAAAAAA');

      // Assess
      await expect(deleting).rejects.toThrow(SearchUnavailableError);
      await expect(deleting).rejects.toThrow(/es_rejected_execution_exception/);
    });
  });

  describe('Method: deleteDataSource', () => {
    it('deletes by query filtered by organization and data source only', async () => {
      // Prepare
      server.respondWith(
        routes(['POST', '/svc-chunks-*/_delete_by_query', { body: fixture('delete-by-query') }]),
      );

      // Act
      await index.deleteDataSource(ORG, DS_A);

      // Assess
      expect(jsonOf(server.requests[0])).toEqual({
        query: {
          bool: { filter: [{ term: { org_id: ORG } }, { term: { data_source_id: DS_A } }] },
        },
      });
      expect(server.requests[0]?.query.routing).toBe(ORG);
    });
  });

  describe('Method: documentHashes', () => {
    it('pages through a composite aggregation over document id and hash', async () => {
      // Prepare
      const firstPage = fixture('search-composite-page-1') as any;
      const { buckets } = firstPage.aggregations.documents;
      // The adapter asks for another page only after a full one (1000 buckets): fill the fixture's up.
      for (let n = buckets.length; n < 1000; n += 1) {
        buckets.unshift({
          key: { document_id: `doc_00${String(n).padStart(4, '0')}`, document_hash: `h${n}` },
          doc_count: 1,
        });
      }
      const pages = [firstPage, fixture('search-composite-page-2')];
      server.respondWith(
        routes(['POST', '/svc-chunks-*/_search', () => ({ body: pages.shift() })]),
      );

      // Act
      const hashes = await index.documentHashes(ORG, DS_A);

      // Assess
      const [first, second] = server.requests;
      expect(server.requests).toHaveLength(2);
      expect(first?.query).toEqual({ routing: ORG });
      expect(jsonOf(first)).toEqual({
        size: 0,
        query: {
          bool: { filter: [{ term: { org_id: ORG } }, { term: { data_source_id: DS_A } }] },
        },
        aggregations: {
          documents: {
            composite: {
              size: 1000,
              sources: [
                { document_id: { terms: { field: 'document_id' } } },
                { document_hash: { terms: { field: 'document_hash' } } },
              ],
            },
          },
        },
      });
      expect(jsonOf(second).aggregations.documents.composite.after).toEqual({
        document_id: 'doc_01JDOCBBBBBBBBBBBBBBBBBBBB',
        document_hash: '9a0b7d',
      });
      expect(hashes.size).toBe(1000);
      expect(hashes.get('doc_000002')).toBe('h2');
      expect(hashes.get('doc_01JDOCAAAAAAAAAAAAAAAAAAAA')).toBe('3f1c5e');
      // Page two holds a second hash for the same document (an interrupted update): no hash matches.
      expect(hashes.get('doc_01JDOCBBBBBBBBBBBBBBBBBBBB')).toBe('');
    });

    it('maps each document to its hash, and a half-updated document to an empty one', async () => {
      // Prepare
      const page = fixture('search-composite-page-1') as any;
      page.aggregations.documents.buckets.push(
        ...(fixture('search-composite-page-2') as any).aggregations.documents.buckets,
      );
      server.respondWith(routes(['POST', '/svc-chunks-*/_search', { body: page }]));

      // Act
      const hashes = await index.documentHashes(ORG, DS_A);

      // Assess
      expect(hashes).toEqual(
        new Map([
          ['doc_01JDOCAAAAAAAAAAAAAAAAAAAA', '3f1c5e'],
          ['doc_01JDOCBBBBBBBBBBBBBBBBBBBB', ''],
        ]),
      );
      expect(server.requests).toHaveLength(1);
    });
    it('is empty before any chunk index exists', async () => {
      // Prepare
      server.respondWith(
        routes(['POST', '/svc-chunks-*/_search', { body: fixture('search-no-indexes') }]),
      );

      // Act
      const hashes = await index.documentHashes(ORG, DS_A);

      // Assess
      expect(hashes).toEqual(new Map());
    });
  });
});
