import { chunkIndexDefinition } from '../../../layers/core/adapters/opensearch/index-definition';
import type { OpenSearchRetrievalIndex } from '../../../layers/core/adapters/opensearch/opensearch-retrieval-index';
import {
  EmbedderMismatchError,
  type IndexedChunk,
} from '../../../layers/core/ports/retrieval-index.port';
import { describeRetrievalIndexContract } from '../../contract/retrieval-index.contract';
import { fixture } from '../../unit/adapters/opensearch/recording-opensearch';
import { makeLiveOpenSearchIndex } from './live-opensearch-index';

/**
 * The OpenSearch adapter against a real cluster, only when `OPENSEARCH_URL`
 * is set (e.g. `docker run -p 9200:9200 -e discovery.type=single-node
 * -e DISABLE_SECURITY_PLUGIN=true opensearchproject/opensearch:2.19.0`).
 * Without it, the request and response formats are covered by the unit tests
 * against hand-written fixtures (test/fixtures/opensearch/README.md), and
 * this file checks that the fixture mapping matches the definition.
 *
 * With it, the shared contract suite runs too, each test in indexes of its
 * own (`makeLiveOpenSearchIndex`), plus the checks below that only a real
 * engine can answer (exact cosines from its scores, a change of embedder).
 */
const url = process.env.OPENSEARCH_URL;

describe('OpenSearch chunk index definition', () => {
  it('matches the mapping fixture the unit tests answer with', () => {
    // Prepare
    const definition = chunkIndexDefinition({ id: 'fixture-embedder/3', dimensions: 3 });
    const reported = (fixture('get-mapping') as any)['svc-chunks-fixture-embedder-3'].mappings;

    // Assess
    expect(reported._meta).toEqual(definition.mappings._meta);
    expect(reported._routing).toEqual(definition.mappings._routing);
    expect(reported.dynamic).toBe(definition.mappings.dynamic);
    expect(reported.properties).toEqual(definition.mappings.properties);
  });
});

if (url) {
  describeRetrievalIndexContract('OpenSearchRetrievalIndex (OPENSEARCH_URL)', () =>
    makeLiveOpenSearchIndex(url),
  );

  describe('Class: OpenSearchRetrievalIndex (live, OPENSEARCH_URL)', () => {
    let live: Awaited<ReturnType<typeof makeLiveOpenSearchIndex>>;
    let index: OpenSearchRetrievalIndex;
    const EMBEDDER = 'live-test/3';

    const chunk = (overrides: Partial<IndexedChunk>): IndexedChunk => ({
      chunk_id: 'chk_1',
      org_id: 'org_a',
      data_source_id: 'ds_1',
      document_id: 'doc_1',
      document_title: 'Refund policy',
      document_url: null,
      heading_path: ['Refunds'],
      text: 'Refunds are issued within fourteen days.',
      position: 0,
      document_hash: 'hash-1',
      embedder_id: EMBEDDER,
      embedding: [1, 0, 0],
      ...overrides,
    });

    const chunks = [
      chunk({}),
      chunk({
        chunk_id: 'chk_2',
        document_id: 'doc_2',
        document_title: 'Shipping',
        text: 'Parcels leave the warehouse on weekdays.',
        document_hash: 'hash-2',
        embedding: [0.6, 0.8, 0],
      }),
      chunk({
        chunk_id: 'chk_3',
        data_source_id: 'ds_2',
        document_id: 'doc_3',
        text: 'Refunds for gift cards are not possible.',
        document_hash: 'hash-3',
        embedding: [-1, 0, 0],
      }),
      chunk({ chunk_id: 'chk_4', org_id: 'org_b', embedding: [1, 0, 0] }),
    ];

    beforeAll(async () => {
      live = await makeLiveOpenSearchIndex(url);
      index = live.index;
      await index.upsert(chunks);
    });

    afterAll(async () => {
      await live.cleanup();
    });

    it('returns cosine similarity, computed exactly by the engine', async () => {
      const found = await index.knn({ orgId: 'org_a' }, [0.8, 0.6, 0], EMBEDDER, 3);
      expect(found.map((hit) => hit.chunk.chunk_id)).toEqual(['chk_2', 'chk_1', 'chk_3']);
      expect(found.map((hit) => hit.score)).toEqual([
        expect.closeTo(0.96, 5),
        expect.closeTo(0.8, 5),
        expect.closeTo(-0.8, 5),
      ]);
      expect(found[0]?.chunk.embedding).toEqual([0.6, 0.8, 0]);
    });

    it('only ever sees the organization and data sources of the filter', async () => {
      const found = await index.knn(
        { orgId: 'org_a', dataSourceIds: ['ds_2'] },
        [1, 0, 0],
        EMBEDDER,
        10,
      );
      expect(found.map((hit) => hit.chunk.chunk_id)).toEqual(['chk_3']);
      const other = await index.bm25({ orgId: 'org_b' }, 'refunds', 10);
      expect(other.map((hit) => hit.chunk.chunk_id)).toEqual(['chk_4']);
    });

    it('ranks by BM25 with English stemming', async () => {
      const found = await index.bm25({ orgId: 'org_a' }, 'refund', 10);
      expect(found.map((hit) => hit.chunk.chunk_id).sort()).toEqual(['chk_1', 'chk_3']);
      expect(found.every((hit) => hit.score > 0 && hit.chunk.embedding?.length === 3)).toBe(true);
    });

    it('counts, lists hashes and deletes', async () => {
      expect(await index.count({ orgId: 'org_a' })).toBe(3);
      expect(await index.documentHashes('org_a', 'ds_1')).toEqual(
        new Map([
          ['doc_1', 'hash-1'],
          ['doc_2', 'hash-2'],
        ]),
      );
      await index.deleteDocument('org_a', 'ds_1', 'doc_2');
      expect(await index.count({ orgId: 'org_a', dataSourceIds: ['ds_1'] })).toBe(1);
      await index.deleteDataSource('org_a', 'ds_2');
      expect(await index.count({ orgId: 'org_a' })).toBe(1);
      expect(await index.count({ orgId: 'org_b' })).toBe(1);
    });

    it('moves a chunk to the index of its new embedder and refuses the old one', async () => {
      await index.upsert([
        chunk({ chunk_id: 'chk_4', org_id: 'org_b', embedder_id: 'live-test-next/3' }),
      ]);
      expect(await index.count({ orgId: 'org_b' })).toBe(1);
      await expect(index.knn({ orgId: 'org_a' }, [1, 0, 0], 'live-test-next/3', 5)).rejects.toThrow(
        EmbedderMismatchError,
      );
    });
  });
}
