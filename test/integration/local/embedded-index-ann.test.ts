import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { EmbeddedIndex } from '../../../layers/core/adapters/local/embedded-index';
import {
  IndexFileCorruptError,
  OrgIndexFiles,
} from '../../../layers/core/adapters/local/index-files';
import { IndexPartition } from '../../../layers/core/adapters/local/partition/index-partition';
import type { IndexedChunk, ScoredChunk } from '../../../layers/core/ports/retrieval-index.port';

/**
 * The embedded index's HNSW graph (issue 10 item 5, P100–P103): filtered and
 * unfiltered k-NN through the graph against the exact scan, the snapshot's
 * format 4 with its graph files (P127), and the conversion of format-1,
 * format-2 snapshots.
 * No timing here: speed is the bench's (`npm run bench -- --only embedded-index`).
 */

const EMBEDDER = 'test/8';
const DIMENSIONS = 8;

/** xorshift32: the vectors are random but the same at every run. */
function generator(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state / 4294967296;
  };
}

/** Clustered vectors: random ones have no meaningful neighbours. */
function clustered(count: number, dimensions: number, seed: number): number[][] {
  const random = generator(seed);
  const normal = () =>
    Math.sqrt(-2 * Math.log(random() || 1e-12)) * Math.cos(2 * Math.PI * random());
  const centres = Array.from({ length: 20 }, () => Array.from({ length: dimensions }, normal));
  return Array.from({ length: count }, () => {
    const centre = centres[Math.floor(random() * centres.length)] ?? [];
    return centre.map((value) => value + 0.8 * normal());
  });
}

function chunk(i: number, embedding: number[], dataSources = 4): IndexedChunk {
  return {
    chunk_id: `chk_${i}`,
    org_id: 'org_a',
    data_source_id: `ds_${i % dataSources}`,
    document_id: `doc_${Math.floor(i / 2)}`,
    document_title: `Title ${i}`,
    document_url: null,
    heading_path: [],
    text: `chunk number ${i} ${i % 3 === 0 ? 'fizz' : ''} ${i % 5 === 0 ? 'buzz' : ''}`,
    position: i % 2,
    document_hash: 'h',
    embedder_id: embedding.length === DIMENSIONS ? EMBEDDER : `test/${embedding.length}`,
    embedding,
  };
}

const ids = (hits: readonly ScoredChunk[]) => hits.map((hit) => hit.chunk.chunk_id);

/**
 * Share of `expected` found in `actual`. A graph built again (rebuilt, or
 * built after a format-1 load) is built on every core, so it is not the same
 * graph, and its approximate top k may miss one that another build found
 * (CI saw this under load): such comparisons ask for recall, not equality.
 */
const recall = (actual: readonly string[], expected: readonly string[]) =>
  expected.filter((id) => actual.includes(id)).length / expected.length;

const temporaryDirectory = () => mkdtempSync(join(tmpdir(), 'svc-ann-'));

describe('EmbeddedIndex k-NN through its graph (P100, P101)', () => {
  it('returns what the exact scan returns whenever the filter falls back to it, and k results always (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 40, max: 160 }),
        fc.integer({ min: 1, max: 2 ** 31 }),
        fc.subarray(['ds_0', 'ds_1', 'ds_2', 'ds_3', 'ds_unknown']),
        fc.integer({ min: 1, max: 30 }),
        fc.array(fc.nat({ max: 80 }), { maxLength: 12 }),
        async (count, seed, dataSourceIds, k, deletedDocuments) => {
          const vectors = clustered(count, DIMENSIONS, seed);
          const chunks = vectors.map((vector, i) => chunk(i, vector));
          // minVectors 30: a graph for the whole slab, exact scans for filters that let fewer through.
          const withGraph = new EmbeddedIndex({ ann: { minVectors: 30, pendingLimit: 8 } });
          const exact = new EmbeddedIndex({ ann: { minVectors: Number.POSITIVE_INFINITY } });
          for (const index of [withGraph, exact]) {
            // Half before the first search (the graph), half after (pending vectors, scanned exactly).
            await index.upsert(chunks.slice(0, count / 2));
            await index.knn({ orgId: 'org_a' }, vectors[0] ?? [], EMBEDDER, 1);
            await index.upsert(chunks.slice(count / 2));
            for (const doc of deletedDocuments) {
              await index.deleteDocument('org_a', `ds_${(doc * 2) % 4}`, `doc_${doc}`);
            }
          }
          const query = clustered(1, DIMENSIONS, seed + 1)[0] ?? [];
          for (const filter of [{ orgId: 'org_a' }, { orgId: 'org_a', dataSourceIds }]) {
            const approximate = await withGraph.knn(filter, query, EMBEDDER, k);
            const expected = await exact.knn(filter, query, EMBEDDER, k);
            const visible = await exact.count(filter);
            // k results (or all there are), never a deleted or filtered-out chunk, exact scores.
            expect(approximate).toHaveLength(expected.length);
            const allowed = new Set(ids(await exact.knn(filter, query, EMBEDDER, 10_000)));
            for (const hit of approximate) expect(allowed.has(hit.chunk.chunk_id)).toBe(true);
            if (visible < 30) expect(approximate).toEqual(expected);
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('finds at least 95% of the exact top 10 on 5,000 clustered vectors (recall, no timing)', async () => {
    const dimensions = 32;
    const vectors = clustered(5_000, dimensions, 7);
    const chunks = vectors.map((vector, i) => chunk(i, vector));
    const withGraph = new EmbeddedIndex({ ann: { minVectors: 1_000 } });
    const exact = new EmbeddedIndex({ ann: { minVectors: Number.POSITIVE_INFINITY } });
    await withGraph.upsert(chunks);
    await exact.upsert(chunks);

    let found = 0;
    let filteredFound = 0;
    const queries = clustered(50, dimensions, 8);
    for (const query of queries) {
      const truth = ids(await exact.knn({ orgId: 'org_a' }, query, 'test/32', 10));
      const approximate = new Set(
        ids(await withGraph.knn({ orgId: 'org_a' }, query, 'test/32', 10)),
      );
      found += truth.filter((id) => approximate.has(id)).length;
      // Half the data sources: over-fetched from the graph, then filtered.
      const filter = { orgId: 'org_a', dataSourceIds: ['ds_0', 'ds_2'] };
      const filteredTruth = ids(await exact.knn(filter, query, 'test/32', 10));
      const filtered = await withGraph.knn(filter, query, 'test/32', 10);
      expect(filtered).toHaveLength(10);
      const filteredSet = new Set(ids(filtered));
      filteredFound += filteredTruth.filter((id) => filteredSet.has(id)).length;
    }

    expect(found / (queries.length * 10)).toBeGreaterThanOrEqual(0.95);
    expect(filteredFound / (queries.length * 10)).toBeGreaterThanOrEqual(0.95);
  });
});

describe('EmbeddedIndex snapshot format 4 and its graphs (P102, P103, P127)', () => {
  let directory: string;
  beforeEach(() => {
    directory = temporaryDirectory();
  });
  afterEach(() => {
    rmSync(directory, { recursive: true, force: true });
  });

  const vectors = clustered(300, DIMENSIONS, 11);
  const chunks = vectors.map((vector, i) => chunk(i, vector));
  const query = clustered(1, DIMENSIONS, 12)[0] ?? [];
  const ann = { minVectors: 100 };

  /** What an older format wrote: a hole (a deleted document), a heading, and a built graph. */
  const partitionWithHoleAndHeading = () => {
    const headed = chunks.map((each, i) =>
      i === 7 ? { ...each, heading_path: ['Réglages', '設定'], text: 'fizz — 設定 (2)' } : each,
    );
    const partition = new IndexPartition({ minVectors: 100, pendingLimit: 2048, overFetch: 1.5 });
    for (const { embedding, ...stored } of headed) partition.insert(stored, embedding);
    partition.deleteDocument('ds_0', 'doc_0');
    partition.knn(undefined, query, EMBEDDER, 1); // builds the graph the snapshot saves
    return partition;
  };

  async function written(): Promise<{ knn: string[]; bm25: string[] }> {
    const writer = new EmbeddedIndex({ directory, ann });
    await writer.upsert(chunks);
    await writer.deleteDocument('org_a', 'ds_0', 'doc_0');
    const knn = ids(await writer.knn({ orgId: 'org_a' }, query, EMBEDDER, 20));
    const bm25 = ids(await writer.bm25({ orgId: 'org_a' }, 'fizz buzz', 20));
    await writer.snapshot();
    await writer.close();
    return { knn, bm25 };
  }

  async function read(): Promise<{ count: number; knn: string[]; bm25: string[] }> {
    const reader = new EmbeddedIndex({ directory, ann });
    return {
      count: await reader.count({ orgId: 'org_a' }),
      knn: ids(await reader.knn({ orgId: 'org_a' }, query, EMBEDDER, 20)),
      bm25: ids(await reader.bm25({ orgId: 'org_a' }, 'fizz buzz', 20)),
    };
  }

  it('round-trips chunks, deletions, BM25 postings and the graph', async () => {
    const before = await written();

    const files = readdirSync(directory).sort();
    expect(files.filter((name) => name.endsWith('.graph'))).toHaveLength(1);
    expect(readFileSync(join(directory, 'org_a.snapshot')).subarray(0, 8).toString()).toBe(
      'AQSIDX04',
    );
    expect(readFileSync(join(directory, 'org_a.log'), 'utf8')).toBe('');
    expect(await read()).toEqual({ count: 299, ...before });
  });

  it('changes a loaded graph (a view of its file) after loading it into memory once (P129)', async () => {
    await written();
    const settings = { minVectors: 100, pendingLimit: 4 };
    const index = new EmbeddedIndex({ directory, ann: settings });
    await index.knn({ orgId: 'org_a' }, query, EMBEDDER, 5); // searches the mapped graph
    const extra = clustered(12, DIMENSIONS, 13).map((vector, i) => chunk(1000 + i, vector));

    // Act: more vectors than pendingLimit (the graph takes them in), and a removal from the graph.
    await index.upsert(extra);
    await index.deleteDocument('org_a', 'ds_2', 'doc_1');
    const nearest = await index.knn({ orgId: 'org_a' }, extra[5]?.embedding ?? [], EMBEDDER, 1);
    await index.snapshot();
    await index.close();

    // Assess: the new vector is found, through the graph, before and after a restart.
    expect(ids(nearest)).toEqual(['chk_1005']);
    const reloaded = new EmbeddedIndex({ directory, ann: settings });
    expect(await reloaded.count({ orgId: 'org_a' })).toBe(299 + 12 - 1);
    expect(
      ids(await reloaded.knn({ orgId: 'org_a' }, extra[5]?.embedding ?? [], EMBEDDER, 1)),
    ).toEqual(['chk_1005']);
    expect(readdirSync(directory).filter((name) => name.endsWith('.graph'))).toHaveLength(1);
  });

  it('rebuilds a lost or truncated graph from the vectors', async () => {
    const before = await written();
    const graph = readdirSync(directory).find((name) => name.endsWith('.graph')) ?? '';

    truncateSync(join(directory, graph), 100);
    const afterTruncation = await read();
    rmSync(join(directory, graph));
    const afterRemoval = await read();

    for (const rebuilt of [afterTruncation, afterRemoval]) {
      expect(rebuilt).toMatchObject({ count: 299, bm25: before.bm25 });
      expect(recall(rebuilt.knn, before.knn)).toBeGreaterThanOrEqual(0.9);
    }
  });

  it('refuses a truncated snapshot (a crash cannot leave one: it is renamed into place whole)', async () => {
    await written();
    const snapshot = join(directory, 'org_a.snapshot');
    truncateSync(snapshot, readFileSync(snapshot).length - 3);

    await expect(
      new EmbeddedIndex({ directory, ann }).count({ orgId: 'org_a' }),
    ).rejects.toBeInstanceOf(IndexFileCorruptError);
  });

  it('loads a damaged snapshot or refuses it as corrupt, never anything else (property, P127)', async () => {
    await written();
    const snapshot = join(directory, 'org_a.snapshot');
    const original = readFileSync(snapshot);
    // Half the flips in the header and the first sections, where a wrong byte changes the most.
    const at = fc.oneof(fc.nat({ max: 4095 }), fc.nat({ max: original.length - 1 }));
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(at, fc.integer({ min: 1, max: 255 })), {
          minLength: 1,
          maxLength: 4,
        }),
        async (flips) => {
          const damaged = Buffer.from(original);
          for (const [at, mask] of flips) damaged[at] = (damaged[at] as number) ^ mask;
          writeFileSync(snapshot, damaged);
          try {
            const index = new EmbeddedIndex({ directory, ann });
            await index.count({ orgId: 'org_a' });
            await index.bm25({ orgId: 'org_a' }, 'fizz buzz chunk', 5);
          } catch (error) {
            expect(error).toBeInstanceOf(IndexFileCorruptError);
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('deletes graphs no snapshot names (one a crash left before its snapshot was renamed)', async () => {
    writeFileSync(join(directory, 'org_a.0-000000000000.graph'), 'orphan');
    writeFileSync(join(directory, 'org_b.0-000000000000.graph'), 'another organization');
    await written();

    const graphs = readdirSync(directory).filter((name) => name.endsWith('.graph'));
    expect(graphs).toHaveLength(2);
    expect(graphs).toContain('org_b.0-000000000000.graph');
    expect(graphs).not.toContain('org_a.0-000000000000.graph');
  });

  it('loads a format-1 snapshot and its log, and writes it again in format 4 once (P103)', async () => {
    // Prepare: a data directory as it was before P102, with a log after its snapshot.
    const exact = new EmbeddedIndex({ ann: { minVectors: Number.POSITIVE_INFINITY } });
    await exact.upsert(chunks);
    await exact.deleteDocument('org_a', 'ds_0', 'doc_0');
    const old = new OrgIndexFiles(directory, 'org_a');
    await old.writeFormat1Snapshot(
      chunks.slice(0, 250).map(({ embedding, ...stored }) => ({
        chunk: stored,
        embedding: Float32Array.from(embedding),
      })),
    );
    await old.append({
      op: 'upsert',
      chunks: chunks.slice(250).map(({ embedding, ...stored }) => ({ chunk: stored, embedding })),
    });
    await old.append({ op: 'deleteDocument', data_source_id: 'ds_0', document_id: 'doc_0' });
    expect(readFileSync(join(directory, 'org_a.snapshot')).subarray(0, 8).toString()).toBe(
      'AQSIDX01',
    );

    // Act
    const first = await read();

    // Assess: converted, same content as an index that never saw a file; a second start reads format 4.
    expect(readFileSync(join(directory, 'org_a.snapshot')).subarray(0, 8).toString()).toBe(
      'AQSIDX04',
    );
    expect(readFileSync(join(directory, 'org_a.log'), 'utf8')).toBe('');
    expect(first.count).toBe(299);
    expect(first.bm25).toEqual(ids(await exact.bm25({ orgId: 'org_a' }, 'fizz buzz', 20)));
    const exactKnn = ids(await exact.knn({ orgId: 'org_a' }, query, EMBEDDER, 20));
    expect(recall(first.knn, exactKnn)).toBeGreaterThanOrEqual(0.9);
    const second = await read();
    expect(second).toMatchObject({ count: first.count, bm25: first.bm25 });
    expect(recall(second.knn, exactKnn)).toBeGreaterThanOrEqual(0.9);
  });

  it('loads a format-3 snapshot (its keys decoded at the start), and writes it again in format 4 once', async () => {
    // Prepare: a data directory as format 3 wrote it, with a hole and a heading.
    const partition = partitionWithHoleAndHeading();
    await new OrgIndexFiles(directory, 'org_a').writeFormat3Snapshot(partition.image());
    expect(readFileSync(join(directory, 'org_a.snapshot')).subarray(0, 8).toString()).toBe(
      'AQSIDX03',
    );

    // Act
    const index = new EmbeddedIndex({ directory, ann });
    const hits = await index.bm25({ orgId: 'org_a' }, '設定 réglages', 5);
    const restarted = new EmbeddedIndex({ directory, ann });

    // Assess: the same chunks, heading included, in format 4; a second start answers alike.
    expect(await index.count({ orgId: 'org_a' })).toBe(299);
    expect(hits[0]?.chunk).toMatchObject({
      chunk_id: 'chk_7',
      text: 'fizz — 設定 (2)',
      heading_path: ['Réglages', '設定'],
    });
    expect(readFileSync(join(directory, 'org_a.snapshot')).subarray(0, 8).toString()).toBe(
      'AQSIDX04',
    );
    expect(ids(await restarted.bm25({ orgId: 'org_a' }, '設定 réglages', 5))).toEqual(ids(hits));
    expect(await restarted.documentHashes('org_a', 'ds_1')).toEqual(
      await index.documentHashes('org_a', 'ds_1'),
    );
    expect(await read()).toMatchObject({
      count: 299,
      knn: ids(await index.knn({ orgId: 'org_a' }, query, EMBEDDER, 20)),
    });
  });

  it('loads a format-2 snapshot with its graph, and writes it again in format 4 once (P127)', async () => {
    // Prepare: a data directory as P102 wrote it, the graph named by its SHA-256, a hole and a heading.
    const partition = partitionWithHoleAndHeading();
    await new OrgIndexFiles(directory, 'org_a').writeFormat2Snapshot(partition.image());
    expect(readFileSync(join(directory, 'org_a.snapshot')).subarray(0, 8).toString()).toBe(
      'AQSIDX02',
    );
    const oldGraph = readdirSync(directory).find((name) => name.endsWith('.graph'));

    // Act
    const index = new EmbeddedIndex({ directory, ann });
    const hits = await index.bm25({ orgId: 'org_a' }, '設定 réglages', 5);

    // Assess: the same chunks, text and heading to the character, in format 4, its graph carried over.
    expect(await index.count({ orgId: 'org_a' })).toBe(299);
    expect(hits[0]?.chunk).toMatchObject({
      chunk_id: 'chk_7',
      text: 'fizz — 設定 (2)',
      heading_path: ['Réglages', '設定'],
    });
    expect(readFileSync(join(directory, 'org_a.snapshot')).subarray(0, 8).toString()).toBe(
      'AQSIDX04',
    );
    const graphs = readdirSync(directory).filter((name) => name.endsWith('.graph'));
    expect(graphs).toHaveLength(1);
    expect(graphs).not.toContain(oldGraph);
    expect(await read()).toMatchObject({
      count: 299,
      knn: ids(await index.knn({ orgId: 'org_a' }, query, EMBEDDER, 20)),
    });
  });
});
