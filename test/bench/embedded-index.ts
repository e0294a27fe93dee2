/**
 * The `embedded-index` section of `npm run bench` (issue 10 item 5): the
 * embedded index's exact scan next to its HNSW graph (P100), in one run, at
 * 100k and 1M chunks of 384 dimensions.
 *
 * Vectors are clustered, not uniform (uniform random vectors have no real
 * nearest neighbours, so recall on them means nothing): 2,000 centres drawn
 * from a Gaussian, each chunk a centre plus Gaussian noise, unit length. A
 * query is a chunk's vector plus a little noise, and a few words of that
 * chunk's text for BM25 (Zipf-distributed synthetic text, as the
 * semantic-search section). Deterministic: the same seed gives the same
 * vectors, texts and queries.
 *
 * Per size: build (insert + graph), snapshot size, then in this process
 * k-NN (top 100, the hybrid depth) and hybrid (k-NN + BM25 + fusion, the
 * query vector given) through the graph and through the exact scan, recall@10
 * of the graph's top 10 against the scan's; and in fresh processes
 * (index-load-probe.ts) the load time and resident memory of each mode.
 *
 * `--quick`: 20k chunks only, nothing written. `--sizes 100000,1000000`:
 * choose the sizes (the default is 100k and 1M).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { EmbeddedIndex } from '../../layers/core/adapters/local/embedded-index';
import {
  RETRIEVAL_TUNING,
  rankByStrategy,
  strategySettingsFor,
} from '../../layers/core/domain/retrieval/fusion';
import type { IndexedChunk, SearchFilter } from '../../layers/core/ports/retrieval-index.port';
import { table } from '../support/markdown-table';
import { writeSection } from './benchmarks-doc';
import { describeMachine, type Machine } from './machine';
import { generator, syntheticTexts } from './semantic-search';
import { type LatencySummary, summarize } from './stats';

const ROOT = resolve(__dirname, '..', '..');
const DIMENSIONS = 384;
const CENTRES = 2_000;
/** Noise per coordinate around a centre (a centre's coordinates are standard normal). */
const SPREAD = 0.9;
/** Noise per coordinate of a query (its vector has unit length), relative to 1/√dimensions. */
const QUERY_NOISE = 0.5;
const DATA_SOURCES = 10;
const EMBEDDER = 'bench-clustered/384';

export interface EmbeddedIndexSettings {
  readonly sizes: readonly number[];
  readonly warmupQueries: number;
  readonly queries: number;
  /** Words of text per chunk: fewer at 1M, where the text would dominate memory. */
  readonly wordsPerChunk: (size: number) => number;
}

const FULL: EmbeddedIndexSettings = {
  sizes: [100_000, 1_000_000],
  warmupQueries: 30,
  queries: 300,
  wordsPerChunk: (size) => (size > 200_000 ? 48 : 200),
};

const QUICK: EmbeddedIndexSettings = { ...FULL, sizes: [20_000], queries: 100 };

interface ModeResult {
  readonly knn: LatencySummary;
  readonly bm25: LatencySummary;
  readonly fusion: LatencySummary;
  readonly hybrid: LatencySummary;
  readonly filteredKnn: LatencySummary;
  readonly filteredBm25: LatencySummary;
  readonly filtered: LatencySummary;
  readonly loadSeconds: number;
  /** From the start of the load to the first hybrid search's answer. */
  readonly readySeconds: number;
  readonly rssMiB: number;
  readonly rssAfterQueriesMiB: number;
  readonly probeQueries: number;
  readonly rssGrowthMiB: number;
  readonly freshMemoryMsPerMiB: number;
}

export interface IndexSizeResult {
  readonly chunks: number;
  readonly words: number;
  readonly insertSeconds: number;
  readonly graphSeconds: number;
  readonly snapshotMiB: number;
  readonly graphMiB: number;
  readonly recallAt10: number;
  readonly filteredRecallAt10: number;
  readonly exact: ModeResult;
  readonly ann: ModeResult;
}

export function gaussian(random: () => number): () => number {
  return () => {
    const u = random() || Number.MIN_VALUE;
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
  };
}

export function normalize(vector: Float32Array): Float32Array {
  let norm = 0;
  for (const value of vector) norm += value * value;
  const scale = 1 / Math.sqrt(norm);
  for (let i = 0; i < vector.length; i += 1) vector[i] = (vector[i] ?? 0) * scale;
  return vector;
}

/** Clustered unit vectors, deterministic for a seed. */
export function clusteredVectors(count: number, seed: number): Float32Array {
  const random = generator(seed);
  const normal = gaussian(random);
  const centres = Float32Array.from({ length: CENTRES * DIMENSIONS }, normal);
  const vectors = new Float32Array(count * DIMENSIONS);
  for (let i = 0; i < count; i += 1) {
    const centre = Math.floor(random() * CENTRES) * DIMENSIONS;
    const row = vectors.subarray(i * DIMENSIONS, (i + 1) * DIMENSIONS);
    for (let j = 0; j < DIMENSIONS; j += 1) row[j] = (centres[centre + j] ?? 0) + SPREAD * normal();
    normalize(row);
  }
  return vectors;
}

function directorySizes(directory: string): { snapshot: number; graph: number } {
  let snapshot = 0;
  let graph = 0;
  for (const name of readdirSync(directory)) {
    const size = statSync(join(directory, name)).size;
    if (name.endsWith('.graph')) graph += size;
    else if (name.endsWith('.snapshot')) snapshot += size;
  }
  return { snapshot, graph };
}

/**
 * Searches the load probe runs before its second memory reading: 1,000, but
 * 200 for the exact scan above 200k chunks, where each takes most of a
 * second and 1,000 of them would be a quarter of a 1M run.
 */
function probeSearches(size: number, mode: 'exact' | 'ann'): number {
  return mode === 'exact' && size > 200_000 ? 200 : 1_000;
}

function probeLoad(
  directory: string,
  orgId: string,
  mode: 'exact' | 'ann',
  queriesFile: string,
  searches: number,
) {
  const result = spawnSync(
    join(ROOT, 'node_modules', '.bin', 'tsx'),
    [
      join(__dirname, 'index-load-probe.ts'),
      directory,
      orgId,
      mode,
      queriesFile,
      EMBEDDER,
      String(searches),
    ],
    { encoding: 'utf8', maxBuffer: 1024 * 1024 },
  );
  if (result.status !== 0) throw new Error(`load probe failed: ${result.stderr}`);
  return JSON.parse(result.stdout.trim().split('\n').pop() ?? '{}') as {
    chunks: number;
    loadSeconds: number;
    readySeconds: number;
    rssMiB: number;
    rssAfterQueriesMiB: number;
    queries: number;
    rssGrowthMiB: number;
    freshMemoryMsPerMiB: number;
  };
}

async function measureSize(
  size: number,
  settings: EmbeddedIndexSettings,
  log: (line: string) => void,
): Promise<IndexSizeResult> {
  const orgId = `org_bench_${size}`;
  const words = settings.wordsPerChunk(size);
  const directory = mkdtempSync(join(tmpdir(), 'svc-bench-index-'));
  try {
    const vectors = clusteredVectors(size, size);
    const texts = syntheticTexts(size, size, words);
    log(`${size.toLocaleString('en-US')} chunks generated (${words} words of text each)`);

    // Built with a log that never folds into a snapshot, then one snapshot: the build measures indexing.
    const writer = new EmbeddedIndex({ directory, compactLogBytes: Number.POSITIVE_INFINITY });
    let started = performance.now();
    const batch = 1_000;
    for (let start = 0; start < size; start += batch) {
      const chunks: IndexedChunk[] = [];
      for (let i = start; i < Math.min(size, start + batch); i += 1) {
        const { title, text } = texts[i] ?? { title: '', text: '' };
        chunks.push({
          chunk_id: `chk_${i}`,
          org_id: orgId,
          data_source_id: `ds_${i % DATA_SOURCES}`,
          document_id: `doc_${Math.floor(i / 3)}`,
          document_title: title,
          document_url: null,
          heading_path: [],
          text,
          position: i % 3,
          document_hash: 'bench',
          embedder_id: EMBEDDER,
          embedding: Array.from(vectors.subarray(i * DIMENSIONS, (i + 1) * DIMENSIONS)),
        });
      }
      await writer.upsert(chunks);
    }
    const insertSeconds = (performance.now() - started) / 1000;
    started = performance.now();
    // The graph grows with the inserts: the first search only takes in the last batch's vectors.
    await writer.knn({ orgId }, Array.from(vectors.subarray(0, DIMENSIONS)), EMBEDDER, 1);
    const graphSeconds = (performance.now() - started) / 1000;
    log(
      `inserted (graph included) in ${insertSeconds.toFixed(1)} s, first search ${graphSeconds.toFixed(1)} s`,
    );
    await writer.snapshot();
    await writer.close();
    const sizes = directorySizes(directory);

    // Queries: a chunk's vector plus noise, and 4 to 8 consecutive words of its text.
    const random = generator(size + 1);
    const normal = gaussian(random);
    const queries = Array.from({ length: settings.warmupQueries + settings.queries }, () => {
      const of = Math.floor(random() * size);
      const vector = normalize(
        Float32Array.from(
          vectors.subarray(of * DIMENSIONS, (of + 1) * DIMENSIONS),
          (value) => value + (QUERY_NOISE / Math.sqrt(DIMENSIONS)) * normal(),
        ),
      );
      const source = texts[of]?.text.split(' ') ?? [];
      const length = 4 + Math.floor(random() * 5);
      const from = Math.floor(random() * Math.max(1, source.length - length));
      const text = source
        .slice(from, from + length)
        .join(' ')
        .replace(/\./g, '');
      return { vector: Array.from(vector), text };
    });

    const depth = RETRIEVAL_TUNING.candidates;
    const strategy = strategySettingsFor(EMBEDDER);
    const filter: SearchFilter = { orgId };
    const filtered: SearchFilter = { orgId, dataSourceIds: ['ds_1', 'ds_4', 'ds_7'] };
    const tops: Record<'exact' | 'ann', { all: string[][]; filtered: string[][] }> = {
      exact: { all: [], filtered: [] },
      ann: { all: [], filtered: [] },
    };
    const queriesFile = join(directory, 'queries.json');
    writeFileSync(queriesFile, JSON.stringify(queries.slice(settings.warmupQueries)));
    const modes = {} as Record<'exact' | 'ann', ModeResult>;
    for (const mode of ['ann', 'exact'] as const) {
      const index = new EmbeddedIndex({
        directory,
        ann: mode === 'exact' ? { minVectors: Number.POSITIVE_INFINITY } : {},
      });
      await index.count(filter);
      const parts = ['knn', 'bm25', 'fusion', 'hybrid', 'filteredKnn', 'filteredBm25', 'filtered'];
      const samples = Object.fromEntries(parts.map((part) => [part, [] as number[]]));
      const record = (part: string, ms: number) => samples[part]?.push(ms);
      for (const [n, { vector, text }] of queries.entries()) {
        const t0 = performance.now();
        const knn = await index.knn(filter, vector, EMBEDDER, depth);
        const t1 = performance.now();
        const bm25 = await index.bm25(filter, text, depth);
        const t2 = performance.now();
        rankByStrategy('hybrid', { knn, bm25, queryVector: vector }, 10, strategy);
        const t3 = performance.now();
        const knnFiltered = await index.knn(filtered, vector, EMBEDDER, depth);
        const t4 = performance.now();
        const bm25Filtered = await index.bm25(filtered, text, depth);
        const t5 = performance.now();
        rankByStrategy(
          'hybrid',
          { knn: knnFiltered, bm25: bm25Filtered, queryVector: vector },
          10,
          strategy,
        );
        const t6 = performance.now();
        if (n < settings.warmupQueries) continue;
        record('knn', t1 - t0);
        record('bm25', t2 - t1);
        record('fusion', t3 - t2);
        record('hybrid', t3 - t0);
        record('filteredKnn', t4 - t3);
        record('filteredBm25', t5 - t4);
        record('filtered', t6 - t3);
        tops[mode].all.push(knn.slice(0, 10).map((hit) => hit.chunk.chunk_id));
        tops[mode].filtered.push(knnFiltered.slice(0, 10).map((hit) => hit.chunk.chunk_id));
      }
      await index.close();
      const loaded = probeLoad(directory, orgId, mode, queriesFile, probeSearches(size, mode));
      if (loaded.chunks !== size) throw new Error(`${mode} load found ${loaded.chunks} chunks`);
      const summary = (part: string) => summarize(samples[part] ?? []);
      modes[mode] = {
        knn: summary('knn'),
        bm25: summary('bm25'),
        fusion: summary('fusion'),
        hybrid: summary('hybrid'),
        filteredKnn: summary('filteredKnn'),
        filteredBm25: summary('filteredBm25'),
        filtered: summary('filtered'),
        loadSeconds: loaded.loadSeconds,
        readySeconds: loaded.readySeconds,
        rssMiB: loaded.rssMiB,
        rssAfterQueriesMiB: loaded.rssAfterQueriesMiB,
        probeQueries: loaded.queries,
        rssGrowthMiB: loaded.rssGrowthMiB,
        freshMemoryMsPerMiB: loaded.freshMemoryMsPerMiB,
      };
      log(
        `${mode}: k-NN p95 ${modes[mode].knn.p95Ms.toFixed(2)} ms, BM25 p95 ${modes[mode].bm25.p95Ms.toFixed(2)} ms, hybrid p95 ${modes[mode].hybrid.p95Ms.toFixed(2)} ms, loads in ${loaded.loadSeconds.toFixed(2)} s (first answer at ${loaded.readySeconds.toFixed(2)} s), RSS ${loaded.rssMiB.toFixed(0)} MiB, ${loaded.rssAfterQueriesMiB.toFixed(0)} MiB after ${loaded.queries} queries`,
      );
    }
    const recall = (kind: 'all' | 'filtered') => {
      let found = 0;
      let total = 0;
      tops.exact[kind].forEach((exact, q) => {
        const approximate = new Set(tops.ann[kind][q]);
        found += exact.filter((id) => approximate.has(id)).length;
        total += exact.length;
      });
      return total === 0 ? 1 : found / total;
    };
    const result: IndexSizeResult = {
      chunks: size,
      words,
      insertSeconds,
      graphSeconds,
      snapshotMiB: sizes.snapshot / 1024 ** 2,
      graphMiB: sizes.graph / 1024 ** 2,
      recallAt10: recall('all'),
      filteredRecallAt10: recall('filtered'),
      exact: modes.exact,
      ann: modes.ann,
    };
    log(
      `recall@10 ${result.recallAt10.toFixed(3)} (filtered ${result.filteredRecallAt10.toFixed(3)})`,
    );
    return result;
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

const ms = (value: number) => value.toFixed(2);
const count = (value: number) => value.toLocaleString('en-US');

export function renderEmbeddedIndexSection(report: {
  readonly date: string;
  readonly machine: Machine;
  readonly command: string;
  readonly durationSeconds: number;
  readonly loadAverage: { readonly before: number; readonly after: number };
  readonly settings: EmbeddedIndexSettings;
  readonly result: IndexSizeResult;
}): string {
  const { machine, settings, result } = report;
  const latency = [result].flatMap((result) =>
    (['exact', 'ann'] as const).flatMap((mode) =>
      (
        [
          ['k-NN, top 100 (vector)', result[mode].knn],
          ['BM25, top 100 (lexical)', result[mode].bm25],
          ['fusion (RRF)', result[mode].fusion],
          ['hybrid (k-NN + BM25 + fusion)', result[mode].hybrid],
          ['k-NN, 3 of 10 data sources', result[mode].filteredKnn],
          ['BM25, 3 of 10 data sources', result[mode].filteredBm25],
          ['hybrid, 3 of 10 data sources', result[mode].filtered],
        ] as const
      ).map(([label, summary]) => [
        count(result.chunks),
        mode === 'exact' ? 'exact scan' : 'HNSW graph',
        label,
        ms(summary.p50Ms),
        ms(summary.p95Ms),
        ms(summary.p99Ms),
      ]),
    ),
  );
  const storage = [result].map((result) => [
    count(result.chunks),
    String(result.words),
    `${result.insertSeconds.toFixed(1)} s`,
    `${result.graphSeconds.toFixed(1)} s`,
    result.recallAt10.toFixed(3),
    result.filteredRecallAt10.toFixed(3),
    `${result.snapshotMiB.toFixed(0)} + ${result.graphMiB.toFixed(0)}`,
  ]);
  const loading = (['exact', 'ann'] as const).map((mode) => [
    mode === 'exact' ? 'exact scan' : 'HNSW graph',
    `${result[mode].loadSeconds.toFixed(2)} s`,
    `${result[mode].readySeconds.toFixed(2)} s`,
    result[mode].rssMiB.toFixed(0),
    `${result[mode].rssAfterQueriesMiB.toFixed(0)} (${count(result[mode].probeQueries)} hybrid searches)`,
  ]);
  const floor = result.ann.freshMemoryMsPerMiB;
  const ann = result.ann;
  const targets = `
**Targets (issue 33 item 3)**: hybrid p95 ≤ 15 ms: ${ms(ann.hybrid.p95Ms)} ms (${ann.hybrid.p95Ms <= 15 ? 'met' : 'not met'}), filtered ${ms(ann.filtered.p95Ms)} ms (${ann.filtered.p95Ms <= 15 ? 'met' : 'not met'}); recall@10 ≥ 0.95: ${result.recallAt10.toFixed(3)}, filtered ${result.filteredRecallAt10.toFixed(3)} (${Math.min(result.recallAt10, result.filteredRecallAt10) >= 0.95 ? 'met' : 'not met'}); ready to answer after a restart ≤ 2 s: ${ann.readySeconds.toFixed(2)} s (${ann.readySeconds <= 2 ? 'met' : 'not met'}); build ≤ 5 minutes: ${(result.insertSeconds + result.graphSeconds).toFixed(0)} s (${result.insertSeconds + result.graphSeconds <= 300 ? 'met' : 'not met'}).
`;
  return `## Embedded index at ${count(result.chunks)} chunks: exact scan and HNSW graph

Written by \`${report.command}\` (test/bench/embedded-index.ts) on ${report.date};
the run took ${report.durationSeconds.toFixed(0)} s. Rerun it rather than editing these figures.

**Machine**: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB.toFixed(1)} GiB RAM,
${machine.os}, Node.js ${machine.node}. 1-minute load average
${report.loadAverage.before.toFixed(2)} before the run and ${report.loadAverage.after.toFixed(2)} after it (the bench keeps one
core busy, the graph's build both; more means other work shared the machine and skewed the figures).

### Latency per search (${settings.queries} measured queries after ${settings.warmupQueries} of warm-up)

${table(['Chunks', 'k-NN by', 'Search', 'p50 ms', 'p95 ms', 'p99 ms'], latency)}

### Build, recall and storage

${table(['Chunks', 'Words/chunk', 'Insert (graph included)', 'First search after', 'Recall@10', 'Recall@10, filtered', 'Snapshot + graph MiB'], storage)}

### A restart: load, first answer and resident memory (a fresh process)

${table(['k-NN by', 'Load', 'First hybrid answer', 'RSS MiB after load', 'RSS MiB after searches'], loading)}
${targets}
**This machine's floor for a load.** A new process here takes ${floor.toFixed(2)} ms to make
each MiB of fresh memory resident (page faults, measured by touching 256 MiB
after the load; a few tenths of a millisecond on bare metal), so the
${result.ann.rssGrowthMiB.toFixed(0)} MiB the HNSW load adds to the process cannot take less than
${((floor * result.ann.rssGrowthMiB) / 1000).toFixed(1)} s on it, whatever the code does: the load reads the
snapshot in place (vectors, postings and texts stay in the file, read by
positional reads when a search needs them) so that it adds little.

**What is measured.** One organization's \`EmbeddedIndex\`, chunks spread over
${DATA_SOURCES} data sources, 384-dimension vectors in ${count(CENTRES)} Gaussian clusters (a
centre plus noise of ${SPREAD} per coordinate, unit length) and Zipf-distributed
synthetic text. A query is a chunk's vector plus noise and 4 to 8 words of its
text. Both modes answer the same queries from the same snapshot: "exact scan"
is the index with the graph turned off (\`ann.minVectors\` infinite), "HNSW
graph" the default (P100). k-NN asks for ${RETRIEVAL_TUNING.candidates} results, the hybrid depth; the
hybrid rows are k-NN plus BM25 of the words plus reciprocal rank fusion (the
query's embedding is given, not computed). Recall@10 is the share of the exact
scan's top 10 that the graph's top 10 holds. Insert is \`upsert\` of every
chunk (1,000 a call, logged to disk), the graph growing with it in
multi-threaded batches; "first search after" is what the first search then
still waits for. Snapshot and graph are the files a restart reads; load,
first answer and RSS are measured in a fresh Node.js process
(\`index-load-probe.ts\`): load is until the index answers \`count\`, first
answer until its first hybrid search returns, then RSS (Node.js itself is
about 50 MiB of it) after the load and after the measured queries searched
again, hybrid and filtered, until 1,000 searches (200 for the exact scan above
200,000 chunks, where each takes most of a second); the page cache holds the
files from the build, as after a restart of \`npm start\`.`;
}

export async function runEmbeddedIndexBench(options: {
  readonly quick: boolean;
  readonly only: boolean;
  readonly document: string;
  readonly sizes?: readonly number[];
}): Promise<void> {
  const base = options.quick ? QUICK : FULL;
  const settings = options.sizes ? { ...base, sizes: options.sizes } : base;
  const log = (line: string) => console.log(`[bench] ${line}`);
  log(
    `embedded index: ${settings.sizes.map(count).join(' and ')} chunks${options.quick ? ' (quick)' : ''}`,
  );
  const { quick, only } = options;
  const sizesFlag = options.sizes ? ` --sizes ${options.sizes.join(',')}` : '';
  const command = `npm run bench${quick || only || sizesFlag ? ' --' : ''}${quick ? ' --quick' : ''}${only ? ' --only embedded-index' : ''}${sizesFlag}`;
  // One section per size: a 1M run takes half an hour and need not be repeated with each 100k run.
  for (const size of settings.sizes) {
    const sizeStarted = performance.now();
    const loadBefore = loadavg()[0] ?? 0;
    const result = await measureSize(size, settings, log);
    const section = renderEmbeddedIndexSection({
      date: new Date().toISOString().slice(0, 10),
      machine: describeMachine(),
      command,
      durationSeconds: (performance.now() - sizeStarted) / 1000,
      loadAverage: { before: loadBefore, after: loadavg()[0] ?? 0 },
      settings,
      result,
    });
    console.log(`\n${section}`);
    if (quick) {
      log('quick run: docs/benchmarks.md left as it was');
      continue;
    }
    writeSection(options.document, `embedded-index-${size}`, section);
    log(`wrote the embedded-index-${size} section of ${options.document}`);
  }
}
