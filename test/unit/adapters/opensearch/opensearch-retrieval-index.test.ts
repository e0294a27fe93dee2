import {
  BulkIndexingError,
  OpenSearchRequestError,
  SearchUnavailableError,
} from '../../../../layers/core/adapters/opensearch/errors';
import { chunkIndexDefinition } from '../../../../layers/core/adapters/opensearch/index-definition';
import { OpenSearchRetrievalIndex } from '../../../../layers/core/adapters/opensearch/opensearch-retrieval-index';
import { ServiceUnavailableError } from '../../../../layers/core/domain/errors';
import { HEADING_BOOST } from '../../../../layers/core/domain/retrieval/bm25';
import {
  EmbedderMismatchError,
  type IndexedChunk,
} from '../../../../layers/core/ports/retrieval-index.port';
import { expectDocumentedRequests } from './documented-request-shapes';
import {
  clientFor,
  fixture,
  jsonOf,
  ndjsonOf,
  type RecordingOpenSearch,
  type Reply,
  routes,
  startRecordingOpenSearch,
} from './recording-opensearch';

const ORG = 'org_01JORGAAAAAAAAAAAAAAAAAAAA';
const DS_A = 'ds_01JDSAAAAAAAAAAAAAAAAAAAAA';
const DS_B = 'ds_01JDSBBBBBBBBBBBBBBBBBBBBB';
const EMBEDDER = 'fixture-embedder/3';
const INDEX = 'svc-chunks-fixture-embedder-3';
const OTHERS = `svc-chunks-*,-${INDEX}`;

const chunk = (overrides: Partial<IndexedChunk> = {}): IndexedChunk => ({
  chunk_id: 'chk_01JAAAAAAAAAAAAAAAAAAAAAA1',
  org_id: ORG,
  data_source_id: DS_A,
  document_id: 'doc_01JDOCAAAAAAAAAAAAAAAAAAAA',
  document_title: 'Refund policy',
  document_url: 'https://example.com/help/refunds',
  heading_path: ['Refunds', 'Timing'],
  text: 'Refunds are issued within 14 days of the return arriving.',
  position: 0,
  document_hash: '3f1c5e',
  embedder_id: EMBEDDER,
  embedding: [0.6, 0.8, 0],
  ...overrides,
});

const SECOND = chunk({
  chunk_id: 'chk_01JAAAAAAAAAAAAAAAAAAAAAA2',
  data_source_id: DS_B,
  document_id: 'doc_01JDOCBBBBBBBBBBBBBBBBBBBB',
  document_title: 'Shipping',
  document_url: null,
  heading_path: [],
  text: 'Parcels leave the warehouse on weekdays.',
  position: 3,
  document_hash: '9a0b7d',
  embedding: [-0.6, 0, 0.8],
});

/** Answers of a cluster where the index already exists as defined. */
const existingIndex: [string, RegExp | string, Reply][] = [
  ['HEAD', `/${INDEX}`, { status: 200 }],
  ['GET', `/${INDEX}/_mapping`, { body: fixture('get-mapping') }],
];

describe('Class: OpenSearchRetrievalIndex', () => {
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

  describe('Method: knn', () => {
    const vector = [0.7, 0.7, 0.1];

    it('sends one multi-search: k-NN with the filter inside, and a look for other embedders', async () => {
      // Prepare
      server.respondWith(routes(['POST', '/_msearch', { body: fixture('msearch-knn') }]));

      // Act
      await index.knn({ orgId: ORG, dataSourceIds: [DS_A, DS_B] }, vector, EMBEDDER, 5);

      // Assess
      const [request] = server.requests;
      const filter = [{ term: { org_id: ORG } }, { terms: { data_source_id: [DS_A, DS_B] } }];
      expect(ndjsonOf(request)).toEqual([
        { index: INDEX, routing: ORG, ignore_unavailable: true },
        {
          size: 5,
          query: {
            knn: {
              embedding: { vector, k: 100, filter: { bool: { filter } } },
            },
          },
        },
        { index: OTHERS, routing: ORG, ignore_unavailable: true, allow_no_indices: true },
        {
          size: 1,
          terminate_after: 1,
          _source: ['embedder_id'],
          query: { bool: { filter } },
        },
      ]);
    });

    it('filters by organization alone when no data sources are named', async () => {
      // Prepare
      server.respondWith(routes(['POST', '/_msearch', { body: fixture('msearch-knn') }]));

      // Act
      await index.knn({ orgId: ORG }, vector, EMBEDDER, 500);

      // Assess
      const [, knn] = ndjsonOf(server.requests[0]);
      expect(knn.size).toBe(500);
      expect(knn.query.knn.embedding.k).toBe(500);
      expect(knn.query.knn.embedding.filter).toEqual({
        bool: { filter: [{ term: { org_id: ORG } }] },
      });
    });

    it('maps hits to chunks, with the score turned back into cosine similarity', async () => {
      // Prepare
      server.respondWith(routes(['POST', '/_msearch', { body: fixture('msearch-knn') }]));

      // Act
      const found = await index.knn({ orgId: ORG }, vector, EMBEDDER, 2);

      // Assess
      expect(found.map((hit) => hit.chunk)).toEqual([chunk(), SECOND]);
      expect(found[0]?.score).toBeCloseTo(0.9, 6);
      expect(found[1]?.score).toBeCloseTo(-0.2, 6);
    });

    it('refuses when the filter sees chunks of another embedder', async () => {
      // Prepare
      server.respondWith(
        routes(['POST', '/_msearch', { body: fixture('msearch-knn-other-embedder') }]),
      );

      // Act
      const searching = index.knn({ orgId: ORG }, vector, EMBEDDER, 5);

      // Assess
      await expect(searching).rejects.toThrow(EmbedderMismatchError);
      await expect(searching).rejects.toMatchObject({
        indexedWith: 'openai/text-embedding-3-small/1536',
        searchingWith: EMBEDDER,
      });
    });

    it('turns a failed search inside the multi-search into the error its status says', async () => {
      // Prepare
      server.respondWith(
        routes(['POST', '/_msearch', { body: fixture('msearch-knn-shard-failure') }]),
      );

      // Act
      const searching = index.knn({ orgId: ORG }, vector, EMBEDDER, 5);

      // Assess
      await expect(searching).rejects.toThrow(SearchUnavailableError);
      await expect(searching).rejects.toThrow(/search_phase_execution_exception/);
    });

    it('drops any hit of another organization', async () => {
      // Prepare
      const answer = fixture('msearch-knn') as any;
      answer.responses[0].hits.hits[1]._source.org_id = 'org_01JOTHERRRRRRRRRRRRRRRRRRR';
      server.respondWith(routes(['POST', '/_msearch', { body: answer }]));

      // Act
      const found = await index.knn({ orgId: ORG }, vector, EMBEDDER, 2);

      // Assess
      expect(found.map((hit) => hit.chunk.chunk_id)).toEqual([chunk().chunk_id]);
    });

    it('asks nothing for an empty data source list, k below 1 or a zero vector', async () => {
      expect(await index.knn({ orgId: ORG, dataSourceIds: [] }, vector, EMBEDDER, 5)).toEqual([]);
      expect(await index.knn({ orgId: ORG }, vector, EMBEDDER, 0)).toEqual([]);
      expect(await index.knn({ orgId: ORG }, vector, EMBEDDER, Number.NaN)).toEqual([]);
      expect(await index.knn({ orgId: ORG }, [0, 0, 0], EMBEDDER, 5)).toEqual([]);
      expect(server.requests).toEqual([]);
    });
  });

  describe('Method: bm25', () => {
    it('searches title and text as one field in every chunk index, with the same filter', async () => {
      // Prepare
      server.respondWith(
        routes(['POST', '/svc-chunks-*/_search', { body: fixture('search-bm25') }]),
      );

      // Act
      await index.bm25({ orgId: ORG, dataSourceIds: [DS_A] }, 'refund timing', 8);

      // Assess
      const [request] = server.requests;
      expect(request?.query).toEqual({ routing: ORG });
      expect(jsonOf(request)).toEqual({
        size: 8,
        query: {
          bool: {
            // P125: the headings count too, boosted.
            should: [
              { match: { title_and_text: { query: 'refund timing' } } },
              { match: { 'heading_path.text': { query: 'refund timing', boost: HEADING_BOOST } } },
            ],
            minimum_should_match: 1,
            filter: [{ term: { org_id: ORG } }, { terms: { data_source_id: [DS_A] } }],
          },
        },
      });
    });

    it('adds each expansion word as title-and-text and heading clauses boosted by its weight', async () => {
      // Prepare
      server.respondWith(
        routes(['POST', '/svc-chunks-*/_search', { body: fixture('search-bm25') }]),
      );

      // Act
      await index.bm25({ orgId: ORG }, 'refund timing', 8, [
        { word: 'business', weight: 0.6 },
        { word: 'days', weight: 0.25 },
        { word: 'ignored', weight: 0 },
      ]);

      // Assess: the embedded index adds weight × BM25 of each word, as these boosts do.
      const [request] = server.requests;
      expect(jsonOf(request)).toEqual({
        size: 8,
        query: {
          bool: {
            should: [
              { match: { title_and_text: { query: 'refund timing' } } },
              { match: { 'heading_path.text': { query: 'refund timing', boost: HEADING_BOOST } } },
              { match: { title_and_text: { query: 'business', boost: 0.6 } } },
              { match: { 'heading_path.text': { query: 'business', boost: 0.6 * HEADING_BOOST } } },
              { match: { title_and_text: { query: 'days', boost: 0.25 } } },
              { match: { 'heading_path.text': { query: 'days', boost: 0.25 * HEADING_BOOST } } },
            ],
            minimum_should_match: 1,
            filter: [{ term: { org_id: ORG } }],
          },
        },
      });
    });

    it('returns the chunks with the raw BM25 scores', async () => {
      // Prepare
      server.respondWith(
        routes(['POST', '/svc-chunks-*/_search', { body: fixture('search-bm25') }]),
      );

      // Act
      const found = await index.bm25({ orgId: ORG }, 'refund timing', 8);

      // Assess
      expect(found).toEqual([{ chunk: chunk(), score: 2.8473 }]);
    });

    it('asks nothing for a blank query or no data sources', async () => {
      expect(await index.bm25({ orgId: ORG }, '   ', 8)).toEqual([]);
      expect(await index.bm25({ orgId: ORG, dataSourceIds: [] }, 'refund', 8)).toEqual([]);
      expect(server.requests).toEqual([]);
    });
  });

  describe('Method: count', () => {
    it('counts the chunks the filter sees in every chunk index', async () => {
      // Prepare
      server.respondWith(routes(['POST', '/svc-chunks-*/_count', { body: fixture('count') }]));

      // Act
      const counted = await index.count({ orgId: ORG, dataSourceIds: [DS_A, DS_B] });

      // Assess
      expect(counted).toBe(7);
      expect(server.requests[0]?.query).toEqual({ routing: ORG });
      expect(jsonOf(server.requests[0])).toEqual({
        query: {
          bool: {
            filter: [{ term: { org_id: ORG } }, { terms: { data_source_id: [DS_A, DS_B] } }],
          },
        },
      });
    });

    it('is 0 without a request for an empty data source list', async () => {
      expect(await index.count({ orgId: ORG, dataSourceIds: [] })).toBe(0);
      expect(server.requests).toEqual([]);
    });
  });

  describe('Errors', () => {
    it('turns a timeout into SearchUnavailableError (503 with Retry-After)', async () => {
      // Prepare
      const impatient = new OpenSearchRetrievalIndex({ client: clientFor(server, 100) });
      server.respondWith(() => ({ body: fixture('count'), delayMs: 1000 }));

      // Act
      const counting = impatient.count({ orgId: ORG });

      // Assess
      await expect(counting).rejects.toThrow(SearchUnavailableError);
      await expect(counting).rejects.toBeInstanceOf(ServiceUnavailableError);
      await expect(counting).rejects.toMatchObject({ retryAfterSeconds: 5 });
    });

    it('turns a 5xx answer into SearchUnavailableError', async () => {
      // Prepare
      server.respondWith(() => ({ status: 503, body: fixture('error-search-phase-unavailable') }));

      // Act
      const searching = index.bm25({ orgId: ORG }, 'refund', 5);

      // Assess
      await expect(searching).rejects.toThrow(SearchUnavailableError);
      await expect(searching).rejects.toThrow(/bm25 \(503 search_phase_execution_exception\)/);
    });

    it('turns a dropped connection into SearchUnavailableError', async () => {
      // Prepare
      server.respondWith(() => ({ hangUp: true }));

      // Act
      const counting = index.count({ orgId: ORG });

      // Assess
      await expect(counting).rejects.toThrow(SearchUnavailableError);
    });

    it('turns a refused connection into SearchUnavailableError', async () => {
      // Prepare
      const { url } = server;
      await server.close();
      const nowhere = new OpenSearchRetrievalIndex({ client: clientFor({ url }) });

      // Act
      const counting = nowhere.count({ orgId: ORG });

      // Assess
      await expect(counting).rejects.toThrow(SearchUnavailableError);
      server = await startRecordingOpenSearch();
    });

    it('reports a 4xx answer as a refused request, not as an outage', async () => {
      // Prepare
      server.respondWith(() => ({ status: 400, body: fixture('error-illegal-argument') }));

      // Act
      const counting = index.count({ orgId: ORG });

      // Assess
      await expect(counting).rejects.toThrow(OpenSearchRequestError);
      await expect(counting).rejects.toMatchObject({
        status: 400,
        type: 'search_phase_execution_exception',
      });
    });
  });
});
