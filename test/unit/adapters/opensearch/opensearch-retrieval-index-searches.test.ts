import {
  OpenSearchRequestError,
  SearchUnavailableError,
} from '../../../../layers/core/adapters/opensearch/errors';
import { OpenSearchRetrievalIndex } from '../../../../layers/core/adapters/opensearch/opensearch-retrieval-index';
import { ServiceUnavailableError } from '../../../../layers/core/domain/errors';
import { HEADING_BOOST } from '../../../../layers/core/domain/retrieval/bm25';
import { EmbedderMismatchError } from '../../../../layers/core/ports/retrieval-index.port';
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
  DS_B,
  EMBEDDER,
  INDEX,
  ORG,
  OTHERS,
  SECOND,
} from './retrieval-index-fixtures';

describe('Class: OpenSearchRetrievalIndex (searches)', () => {
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
