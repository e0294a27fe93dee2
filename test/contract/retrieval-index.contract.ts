/**
 * The one contract every RetrievalIndex adapter passes (STYLE.md §3: both
 * adapters of a port pass one shared contract test). An adapter's test file
 * calls `describeRetrievalIndexContract` with a factory:
 *
 * ```ts
 * describeRetrievalIndexContract('EmbeddedIndex in memory', async () => ({
 *   index: new EmbeddedIndex(),
 *   cleanup: async () => {},
 * }));
 * ```
 *
 * Each test makes its own index and uses organization, data source and
 * chunk ids of its own, so a factory may also hand out one shared index (an
 * OpenSearch cluster) without tests seeing each other's chunks. Writes must
 * be visible to the next read (an OpenSearch adapter refreshes, or writes
 * with `refresh: 'wait_for'`).
 *
 * This file is a module, not a test file (jest runs `*.test.ts` only).
 */
import { randomUUID } from 'node:crypto';
import type { Embedder } from '../../layers/core/ports/embedder.port';
import {
  EmbedderMismatchError,
  type IndexedChunk,
  type RetrievalIndex,
  type ScoredChunk,
} from '../../layers/core/ports/retrieval-index.port';
import { retrieve } from '../../layers/core/use-cases/retrieval/retrieve';

export interface IndexUnderTest {
  readonly index: RetrievalIndex;
  /** Removes what the test wrote (files, indices) and releases resources. */
  cleanup(): Promise<void>;
}

const EMBEDDER = 'contract-embedder/4';
const OTHER_EMBEDDER = 'other-embedder/4';

/** Unit vectors in 4 dimensions at known angles, so expected cosines are exact. */
function direction(degrees: number): number[] {
  const radians = (degrees * Math.PI) / 180;
  return [Math.cos(radians), Math.sin(radians), 0, 0];
}

/** Ids unique to one test, so tests never see each other's chunks. */
function scope() {
  const suffix = randomUUID().replace(/-/g, '').slice(0, 12);
  const orgA = `org_a${suffix}`;
  const orgB = `org_b${suffix}`;
  const dsA1 = `ds_a1${suffix}`;
  const dsA2 = `ds_a2${suffix}`;
  const dsB1 = `ds_b1${suffix}`;
  let counter = 0;
  const chunk = (overrides: Partial<IndexedChunk> = {}): IndexedChunk => {
    counter += 1;
    return {
      chunk_id: `chk_${suffix}_${counter}`,
      org_id: orgA,
      data_source_id: dsA1,
      document_id: `doc_${suffix}_${counter}`,
      document_title: 'Untitled',
      document_url: null,
      heading_path: [],
      text: 'nothing in particular',
      position: 0,
      document_hash: 'hash-1',
      embedder_id: EMBEDDER,
      embedding: direction(90),
      ...overrides,
    };
  };
  return { orgA, orgB, dsA1, dsA2, dsB1, chunk };
}

const ids = (hits: readonly ScoredChunk[]) => hits.map((hit) => hit.chunk.chunk_id);

/** An embedder for the strategy checks: every query points at 0°, so cosines are the fixture's. */
const pointingEmbedder: Embedder = {
  id: EMBEDDER,
  dimensions: 4,
  embed: async (texts) => texts.map(() => direction(0)),
};

export function describeRetrievalIndexContract(
  name: string,
  makeIndex: () => Promise<IndexUnderTest>,
): void {
  describe(`RetrievalIndex contract: ${name}`, () => {
    let subject: IndexUnderTest;
    let index: RetrievalIndex;

    beforeEach(async () => {
      subject = await makeIndex();
      index = subject.index;
    });

    afterEach(async () => {
      await subject.cleanup();
    });

    describe('writes', () => {
      it('adds chunks and counts them', async () => {
        const { orgA, chunk } = scope();

        await index.upsert([chunk(), chunk(), chunk()]);

        expect(await index.count({ orgId: orgA })).toBe(3);
      });

      it('accepts an empty batch', async () => {
        const { orgA } = scope();

        await index.upsert([]);

        expect(await index.count({ orgId: orgA })).toBe(0);
      });

      it('replaces a chunk upserted again with the same chunk_id', async () => {
        const { orgA, chunk } = scope();
        const original = chunk({ text: 'the old wording about glaciers' });
        await index.upsert([original]);

        await index.upsert([{ ...original, text: 'the new wording about volcanoes' }]);

        expect(await index.count({ orgId: orgA })).toBe(1);
        expect(await index.bm25({ orgId: orgA }, 'glaciers', 10)).toEqual([]);
        const [hit] = await index.bm25({ orgId: orgA }, 'volcanoes', 10);
        expect(hit?.chunk.text).toBe('the new wording about volcanoes');
      });

      it('returns every field of a chunk as it was indexed', async () => {
        const { orgA, chunk } = scope();
        const indexed = chunk({
          document_title: 'Refund policy',
          document_url: 'https://example.com/refunds',
          heading_path: ['Policy', 'Timing'],
          text: 'Refunds take five business days.',
          position: 3,
          document_hash: 'f'.repeat(64),
          embedding: direction(0),
        });
        await index.upsert([indexed]);

        const [hit] = await index.knn({ orgId: orgA }, direction(0), EMBEDDER, 1);

        const { embedding: _embedding, ...fields } = indexed;
        expect(hit?.chunk).toMatchObject(fields);
      });

      it('deletes every chunk of one document and nothing else', async () => {
        const { orgA, dsA1, dsA2, chunk } = scope();
        await index.upsert([
          chunk({ document_id: 'doc_1', position: 0 }),
          chunk({ document_id: 'doc_1', position: 1 }),
          chunk({ document_id: 'doc_2' }),
          // The same document id in another data source is another document.
          chunk({ data_source_id: dsA2, document_id: 'doc_1' }),
        ]);

        await index.deleteDocument(orgA, dsA1, 'doc_1');

        expect(await index.count({ orgId: orgA, dataSourceIds: [dsA1] })).toBe(1);
        expect(await index.count({ orgId: orgA, dataSourceIds: [dsA2] })).toBe(1);
        expect([...(await index.documentHashes(orgA, dsA1)).keys()]).toEqual(['doc_2']);
      });

      it('deletes every chunk of one data source and nothing else', async () => {
        const { orgA, dsA1, dsA2, chunk } = scope();
        await index.upsert([chunk(), chunk(), chunk({ data_source_id: dsA2 })]);

        await index.deleteDataSource(orgA, dsA1);

        expect(await index.count({ orgId: orgA, dataSourceIds: [dsA1] })).toBe(0);
        expect(await index.count({ orgId: orgA })).toBe(1);
      });

      it('treats deleting what is not there as done', async () => {
        const { orgA, dsA1 } = scope();

        await index.deleteDocument(orgA, dsA1, 'doc_missing');
        await index.deleteDataSource(orgA, 'ds_missing');

        expect(await index.count({ orgId: orgA })).toBe(0);
      });
    });

    describe('documentHashes', () => {
      it('maps each document of a data source to its hash', async () => {
        const { orgA, dsA1, dsA2, chunk } = scope();
        await index.upsert([
          chunk({ document_id: 'doc_1', document_hash: 'h1', position: 0 }),
          chunk({ document_id: 'doc_1', document_hash: 'h1', position: 1 }),
          chunk({ document_id: 'doc_2', document_hash: 'h2' }),
          chunk({ data_source_id: dsA2, document_id: 'doc_3', document_hash: 'h3' }),
        ]);

        const hashes = await index.documentHashes(orgA, dsA1);

        expect(Object.fromEntries(hashes)).toEqual({ doc_1: 'h1', doc_2: 'h2' });
      });

      it('follows a document re-indexed with new content', async () => {
        const { orgA, dsA1, chunk } = scope();
        const first = chunk({ document_id: 'doc_1', document_hash: 'old' });
        await index.upsert([first]);

        await index.deleteDocument(orgA, dsA1, 'doc_1');
        await index.upsert([{ ...first, chunk_id: `${first.chunk_id}_v2`, document_hash: 'new' }]);

        expect(Object.fromEntries(await index.documentHashes(orgA, dsA1))).toEqual({
          doc_1: 'new',
        });
      });

      it('reports a document another embedder indexed as changed when asked with an embedder', async () => {
        const { orgA, dsA1, chunk } = scope();
        await index.upsert([
          chunk({ document_id: 'doc_1', document_hash: 'h1' }),
          chunk({ document_id: 'doc_2', document_hash: 'h2', embedder_id: OTHER_EMBEDDER }),
        ]);

        const current = await index.documentHashes(orgA, dsA1, EMBEDDER);
        const plain = await index.documentHashes(orgA, dsA1);

        expect(Object.fromEntries(current)).toEqual({ doc_1: 'h1', doc_2: '' });
        expect(Object.fromEntries(plain)).toEqual({ doc_1: 'h1', doc_2: 'h2' });
      });

      it('is empty for a data source with nothing indexed', async () => {
        const { orgA } = scope();

        expect((await index.documentHashes(orgA, 'ds_empty')).size).toBe(0);
      });
    });

    describe('documents', () => {
      it("lists each document of a data source once, with its first chunk's title and address and its chunk count", async () => {
        const { orgA, dsA1, dsA2, chunk } = scope();
        await index.upsert([
          chunk({ document_id: 'doc_1', position: 1, document_title: 'Later title' }),
          chunk({
            document_id: 'doc_1',
            position: 0,
            document_title: 'Guide',
            document_url: 'https://example.com/guide',
          }),
          chunk({ document_id: 'doc_2', document_title: 'Notes' }),
          chunk({ data_source_id: dsA2, document_id: 'doc_3' }),
        ]);

        const listed = await index.documents(orgA, dsA1);

        expect(listed.sort((a, b) => a.document_id.localeCompare(b.document_id))).toEqual([
          {
            document_id: 'doc_1',
            document_title: 'Guide',
            document_url: 'https://example.com/guide',
            chunks: 2,
          },
          { document_id: 'doc_2', document_title: 'Notes', document_url: null, chunks: 1 },
        ]);
      });

      it("never lists another organization's documents, even given its data source id", async () => {
        const { orgB, dsA1, chunk } = scope();
        await index.upsert([chunk({ document_id: 'doc_1' })]);

        expect(await index.documents(orgB, dsA1)).toEqual([]);
      });
    });

    describe('documentChunks', () => {
      it("returns a document's first chunks by position, without vectors, and how many it has", async () => {
        const { orgA, dsA1, chunk } = scope();
        await index.upsert([
          chunk({ document_id: 'doc_1', position: 2, text: 'third' }),
          chunk({ document_id: 'doc_1', position: 0, text: 'first', heading_path: ['Intro'] }),
          chunk({ document_id: 'doc_1', position: 1, text: 'second' }),
          chunk({ document_id: 'doc_2', position: 0, text: 'elsewhere' }),
        ]);

        const { chunks, total } = await index.documentChunks(orgA, dsA1, 'doc_1', 2);

        expect(total).toBe(3);
        expect(chunks.map((found) => [found.position, found.text])).toEqual([
          [0, 'first'],
          [1, 'second'],
        ]);
        expect(chunks[0]?.heading_path).toEqual(['Intro']);
        expect(chunks[0]).not.toHaveProperty('embedding');
      });

      it("finds nothing of another organization's document", async () => {
        const { orgB, dsA1, chunk } = scope();
        await index.upsert([chunk({ document_id: 'doc_1' })]);

        expect(await index.documentChunks(orgB, dsA1, 'doc_1', 10)).toEqual({
          chunks: [],
          total: 0,
        });
      });
    });

    describe('knn', () => {
      it('orders chunks by cosine similarity and reports it as the score', async () => {
        const { orgA, chunk } = scope();
        const near = chunk({ embedding: direction(10) });
        const middle = chunk({ embedding: direction(60) });
        const far = chunk({ embedding: direction(170) });
        await index.upsert([far, near, middle]);

        const hits = await index.knn({ orgId: orgA }, direction(0), EMBEDDER, 10);

        expect(ids(hits)).toEqual([near.chunk_id, middle.chunk_id, far.chunk_id]);
        expect(hits[0]?.score).toBeCloseTo(Math.cos((10 * Math.PI) / 180), 4);
        expect(hits[1]?.score).toBeCloseTo(0.5, 4);
        expect(hits[2]?.score).toBeCloseTo(Math.cos((170 * Math.PI) / 180), 4);
      });

      it('returns at most k chunks, the nearest', async () => {
        const { orgA, chunk } = scope();
        const chunks = [0, 20, 40, 60, 80].map((degrees) =>
          chunk({ embedding: direction(degrees) }),
        );
        await index.upsert(chunks);

        const hits = await index.knn({ orgId: orgA }, direction(0), EMBEDDER, 2);

        expect(ids(hits)).toEqual([chunks[0]?.chunk_id, chunks[1]?.chunk_id]);
      });

      it('measures the angle, not the length, of the query vector', async () => {
        const { orgA, chunk } = scope();
        await index.upsert([chunk({ embedding: direction(60) })]);

        const [hit] = await index.knn({ orgId: orgA }, [3, 0, 0, 0], EMBEDDER, 1);

        expect(hit?.score).toBeCloseTo(0.5, 4);
      });

      it('finds nothing in an organization without chunks', async () => {
        const { orgB } = scope();

        expect(await index.knn({ orgId: orgB }, direction(0), EMBEDDER, 5)).toEqual([]);
      });
    });

    describe('bm25', () => {
      it('ranks chunks by how well their words match the query', async () => {
        const { orgA, chunk } = scope();
        const focused = chunk({ text: 'Glacier retreat: glaciers retreat as glacier ice melts.' });
        const passing = chunk({ text: 'A report on coastal erosion that mentions one glacier.' });
        const unrelated = chunk({ text: 'Quarterly revenue grew in every region.' });
        await index.upsert([unrelated, passing, focused]);

        const hits = await index.bm25({ orgId: orgA }, 'glacier retreat', 10);

        expect(ids(hits)).toEqual([focused.chunk_id, passing.chunk_id]);
        expect(hits[0]?.score).toBeGreaterThan(hits[1]?.score ?? Number.POSITIVE_INFINITY);
        expect(hits[1]?.score).toBeGreaterThan(0);
      });

      it('adds the expansion words, each weighted, to the query (pseudo-relevance feedback)', async () => {
        const { orgA, chunk } = scope();
        const glacier = chunk({ text: 'Glacier retreat is measured every year.' });
        const ice = chunk({ text: 'Sea ice melting was measured every year.' });
        const unrelated = chunk({ text: 'Quarterly revenue grew in every region.' });
        await index.upsert([glacier, ice, unrelated]);

        const plain = await index.bm25({ orgId: orgA }, 'glacier', 10);
        const lightly = await index.bm25({ orgId: orgA }, 'glacier', 10, [
          { word: 'ice', weight: 0.2 },
        ]);
        const heavily = await index.bm25({ orgId: orgA }, 'glacier', 10, [
          { word: 'melting', weight: 5 },
          { word: 'ice', weight: 5 },
        ]);

        expect(ids(plain)).toEqual([glacier.chunk_id]);
        expect(ids(lightly)).toEqual([glacier.chunk_id, ice.chunk_id]);
        expect(ids(heavily)).toEqual([ice.chunk_id, glacier.chunk_id]);
        // The query's own words score as before: an expansion only adds.
        expect(lightly[0]?.score).toBeCloseTo(plain[0]?.score ?? 0, 6);
      });

      it('matches words of the document title as well as the text', async () => {
        const { orgA, chunk } = scope();
        const titled = chunk({ document_title: 'Photosynthesis', text: 'How plants make sugar.' });
        await index.upsert([titled, chunk({ text: 'Something else entirely.' })]);

        expect(ids(await index.bm25({ orgId: orgA }, 'photosynthesis', 10))).toEqual([
          titled.chunk_id,
        ]);
      });

      it('matches other forms of a word and ignores case', async () => {
        const { orgA, chunk } = scope();
        const plural = chunk({ text: 'INVOICES are sent monthly.' });
        await index.upsert([plural]);

        expect(ids(await index.bm25({ orgId: orgA }, 'invoice', 10))).toEqual([plural.chunk_id]);
      });

      it('matches words of the heading path, and ranks a chunk whose headings match above one whose do not (P125)', async () => {
        const { orgA, chunk } = scope();
        const underHeading = chunk({
          heading_path: ['Refunds', 'How long do refunds take?'],
          text: 'Money reaches your card within 5 business days.',
        });
        const mentions = chunk({
          heading_path: ['Shipping'],
          text: 'Refunds for lost parcels follow the shipping claim.',
        });
        const unrelated = chunk({
          heading_path: ['Security'],
          text: 'Turn on two-factor sign-in.',
        });
        await index.upsert([unrelated, mentions, underHeading]);

        expect(ids(await index.bm25({ orgId: orgA }, 'business days', 10))).toEqual([
          underHeading.chunk_id,
        ]);
        // Only its headings name refunds; the other chunk's text does: the heading weighs half.
        const hits = await index.bm25({ orgId: orgA }, 'how long do refunds take', 10);
        expect(ids(hits)).toEqual([underHeading.chunk_id, mentions.chunk_id]);
        expect(ids(await index.bm25({ orgId: orgA }, 'security', 10))).toEqual([
          unrelated.chunk_id,
        ]);
      });

      it('returns at most k chunks', async () => {
        const { orgA, chunk } = scope();
        await index.upsert([1, 2, 3, 4].map(() => chunk({ text: 'shared keyword here' })));

        expect(await index.bm25({ orgId: orgA }, 'keyword', 2)).toHaveLength(2);
      });

      it('finds nothing when no word matches', async () => {
        const { orgA, chunk } = scope();
        await index.upsert([chunk({ text: 'apples and pears' })]);

        expect(await index.bm25({ orgId: orgA }, 'submarine', 10)).toEqual([]);
      });
    });

    describe('filters', () => {
      it('searches only the data sources named, all of the organization when none are', async () => {
        const { orgA, dsA1, dsA2, chunk } = scope();
        const inFirst = chunk({ text: 'tax rules', embedding: direction(0) });
        const inSecond = chunk({
          data_source_id: dsA2,
          text: 'tax rates',
          embedding: direction(5),
        });
        await index.upsert([inFirst, inSecond]);

        const onlySecond = { orgId: orgA, dataSourceIds: [dsA2] };
        expect(ids(await index.knn(onlySecond, direction(0), EMBEDDER, 10))).toEqual([
          inSecond.chunk_id,
        ]);
        expect(ids(await index.bm25(onlySecond, 'tax', 10))).toEqual([inSecond.chunk_id]);
        expect(await index.count(onlySecond)).toBe(1);

        const all = { orgId: orgA };
        expect(await index.knn(all, direction(0), EMBEDDER, 10)).toHaveLength(2);
        expect(await index.bm25(all, 'tax', 10)).toHaveLength(2);
        expect(await index.count(all)).toBe(2);
        expect(await index.count({ orgId: orgA, dataSourceIds: [dsA1, dsA2] })).toBe(2);
      });

      it('finds nothing with an empty list of data sources', async () => {
        const { orgA, chunk } = scope();
        await index.upsert([chunk({ text: 'tax rules', embedding: direction(0) })]);

        const none = { orgId: orgA, dataSourceIds: [] };
        expect(await index.knn(none, direction(0), EMBEDDER, 10)).toEqual([]);
        expect(await index.bm25(none, 'tax', 10)).toEqual([]);
        expect(await index.count(none)).toBe(0);
      });

      it('never returns one organization’s chunks to another, even given its data source ids', async () => {
        const { orgA, orgB, dsA1, dsB1, chunk } = scope();
        const ofA = chunk({ text: 'confidential merger plan', embedding: direction(0) });
        const ofB = chunk({
          org_id: orgB,
          data_source_id: dsB1,
          text: 'public merger news',
          embedding: direction(30),
        });
        // One batch with both organizations' chunks: each goes to its own organization.
        await index.upsert([ofA, ofB]);

        for (const dataSourceIds of [undefined, [dsA1], [dsA1, dsB1]]) {
          const filter = { orgId: orgB, ...(dataSourceIds ? { dataSourceIds } : {}) };
          expect(ids(await index.knn(filter, direction(0), EMBEDDER, 10))).not.toContain(
            ofA.chunk_id,
          );
          expect(ids(await index.bm25(filter, 'confidential merger plan', 10))).not.toContain(
            ofA.chunk_id,
          );
        }
        expect(await index.count({ orgId: orgB, dataSourceIds: [dsA1] })).toBe(0);
        expect((await index.documentHashes(orgB, dsA1)).size).toBe(0);
        expect(ids(await index.knn({ orgId: orgB }, direction(0), EMBEDDER, 10))).toEqual([
          ofB.chunk_id,
        ]);
        // …while organization A finds its own.
        expect(ids(await index.bm25({ orgId: orgA }, 'confidential merger plan', 10))).toEqual([
          ofA.chunk_id,
        ]);
      });

      it('never deletes one organization’s chunks on another’s behalf', async () => {
        const { orgA, orgB, dsA1, chunk } = scope();
        const ofA = chunk({ document_id: 'doc_shared' });
        await index.upsert([ofA]);

        await index.deleteDocument(orgB, dsA1, 'doc_shared');
        await index.deleteDataSource(orgB, dsA1);

        expect(await index.count({ orgId: orgA })).toBe(1);
      });
    });

    describe('strategies over the two searches (issue 10, P173)', () => {
      // The D20 strategies fuse in the function (use-cases/retrieval/retrieve.ts) from
      // the adapter's k-NN and BM25 results, so every adapter ranks alike. Cosines to
      // the query (0°): both 1.0 (no query word), exact 0.87 (both words),
      // long 0 (both words, longer), none 0.17 (no word).
      async function fixture() {
        const { orgA, chunk } = scope();
        const semantic = chunk({ text: 'unrelated words entirely', embedding: direction(0) });
        const exact = chunk({ text: 'refund window', embedding: direction(30) });
        const long = chunk({
          text: 'refund window details spelled out for thirty days and more',
          embedding: direction(90),
        });
        const none = chunk({ text: 'nothing here at all', embedding: direction(80) });
        await index.upsert([semantic, exact, long, none]);
        const rank = async (strategy: 'similarity' | 'hybrid' | 'mmr' | 'rerank') =>
          (
            await retrieve(
              { retrieval: index, embedder: pointingEmbedder },
              { orgId: orgA, query: 'refund window', strategy, topK: 4 },
            )
          ).chunks.map((found) => found.chunk.chunk_id);
        return { rank, semantic, exact, long, none };
      }

      it('similarity ranks by cosine alone', async () => {
        const { rank, semantic, exact, long, none } = await fixture();
        expect(await rank('similarity')).toEqual([
          semantic.chunk_id,
          exact.chunk_id,
          none.chunk_id,
          long.chunk_id,
        ]);
      });

      it('hybrid puts the chunk both searches rank high first, and lifts BM25 matches', async () => {
        const { rank, semantic, exact, long, none } = await fixture();
        expect(await rank('hybrid')).toEqual([
          exact.chunk_id,
          long.chunk_id,
          semantic.chunk_id,
          none.chunk_id,
        ]);
      });

      it('mmr and rerank start from the fused candidates', async () => {
        const { rank, exact, semantic, long, none } = await fixture();
        for (const strategy of ['mmr', 'rerank'] as const) {
          const ranked = await rank(strategy);
          expect(ranked[0]).toBe(exact.chunk_id);
          expect([...ranked].sort()).toEqual(
            [exact, semantic, long, none].map((found) => found.chunk_id).sort(),
          );
        }
      });
    });

    describe('embedder mismatch', () => {
      it('refuses a k-NN search when visible chunks were embedded by another embedder', async () => {
        const { orgA, chunk } = scope();
        await index.upsert([chunk({ embedder_id: OTHER_EMBEDDER })]);

        const search = index.knn({ orgId: orgA }, direction(0), EMBEDDER, 10);

        await expect(search).rejects.toBeInstanceOf(EmbedderMismatchError);
        await expect(search).rejects.toMatchObject({
          indexedWith: OTHER_EMBEDDER,
          searchingWith: EMBEDDER,
        });
      });

      it('refuses when only some visible chunks came from another embedder', async () => {
        const { orgA, chunk } = scope();
        await index.upsert([chunk(), chunk({ embedder_id: OTHER_EMBEDDER })]);

        await expect(index.knn({ orgId: orgA }, direction(0), EMBEDDER, 10)).rejects.toBeInstanceOf(
          EmbedderMismatchError,
        );
      });

      it('searches data sources embedded by this embedder when the filter leaves the others out', async () => {
        const { orgA, dsA1, dsA2, chunk } = scope();
        const current = chunk({ embedding: direction(0) });
        await index.upsert([current, chunk({ data_source_id: dsA2, embedder_id: OTHER_EMBEDDER })]);

        const hits = await index.knn(
          { orgId: orgA, dataSourceIds: [dsA1] },
          direction(0),
          EMBEDDER,
          10,
        );

        expect(ids(hits)).toEqual([current.chunk_id]);
      });

      it('searches again once the data source is re-indexed with this embedder', async () => {
        const { orgA, dsA1, chunk } = scope();
        const stale = chunk({ embedder_id: OTHER_EMBEDDER });
        await index.upsert([stale]);

        await index.deleteDataSource(orgA, dsA1);
        await index.upsert([{ ...stale, embedder_id: EMBEDDER }]);

        expect(ids(await index.knn({ orgId: orgA }, direction(90), EMBEDDER, 10))).toEqual([
          stale.chunk_id,
        ]);
      });

      it('does not concern BM25, which reads no vectors', async () => {
        const { orgA, chunk } = scope();
        const stale = chunk({ embedder_id: OTHER_EMBEDDER, text: 'lexical search still works' });
        await index.upsert([stale]);

        expect(ids(await index.bm25({ orgId: orgA }, 'lexical', 10))).toEqual([stale.chunk_id]);
      });

      it('does not concern another organization', async () => {
        const { orgA, orgB, dsB1, chunk } = scope();
        const own = chunk({ org_id: orgB, data_source_id: dsB1, embedding: direction(0) });
        await index.upsert([chunk({ embedder_id: OTHER_EMBEDDER }), own]);

        expect(ids(await index.knn({ orgId: orgB }, direction(0), EMBEDDER, 10))).toEqual([
          own.chunk_id,
        ]);
        await expect(index.knn({ orgId: orgA }, direction(0), EMBEDDER, 10)).rejects.toBeInstanceOf(
          EmbedderMismatchError,
        );
      });
    });
  });
}
