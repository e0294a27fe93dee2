/**
 * The `semantic-search` section of `npm run bench` (issue 3: "semantic-search
 * latency (p50/p95) on the embedded index at 10k and 100k chunks").
 *
 * Synthetic chunks (not SciFact): words drawn from a Zipf distribution over a
 * made-up vocabulary, about 200 words each, titled, spread over 10 data
 * sources, embedded by the offline embedder and indexed in an EmbeddedIndex
 * in memory. Each query is a few words of one chunk. A search is what the
 * default `hybrid` strategy does after embedding the query: one k-NN (exact
 * below 10,000 vectors, through the HNSW graph above, P100)
 * and one BM25 search of `RETRIEVAL_TUNING.candidates` chunks each, then the
 * feedback search (BM25 with the expansion terms, lexical-searches.ts), fused.
 * Deterministic: the same seed gives the same chunks and queries.
 */
import { loadavg } from 'node:os';
import { OfflineHashEmbedder } from '../../layers/core/adapters/ai/offline-embedder';
import { EmbeddedIndex } from '../../layers/core/adapters/local/embedded-index';
import {
  RETRIEVAL_TUNING,
  rankByStrategy,
  strategySettingsFor,
} from '../../layers/core/domain/retrieval/fusion';
import type { IndexedChunk, SearchFilter } from '../../layers/core/ports/retrieval-index.port';
import { lexicalSearches } from '../../layers/core/use-cases/retrieval/lexical-searches';
import { table } from '../support/markdown-table';
import { benchCommand, writeSection } from './benchmarks-doc';
import { describeMachine, type Machine } from './machine';
import { type LatencySummary, summarize } from './stats';

export interface SemanticSearchSettings {
  readonly sizes: readonly number[];
  readonly warmupQueries: number;
  readonly queries: number;
  readonly topK: number;
}

const FULL: SemanticSearchSettings = {
  sizes: [10_000, 100_000],
  warmupQueries: 30,
  queries: 300,
  topK: 10,
};

const QUICK: SemanticSearchSettings = { ...FULL, sizes: [10_000], queries: 100 };

const VOCABULARY = 30_000;
const WORDS_PER_CHUNK = 200;
const DATA_SOURCES = 10;

export interface SizeResult {
  readonly chunks: number;
  readonly indexSeconds: number;
  readonly heapMiB: number;
  readonly embed: LatencySummary;
  readonly knn: LatencySummary;
  readonly bm25: LatencySummary;
  /** The fusion, with its query-likelihood ranking of the fused candidates. */
  readonly fusion: LatencySummary;
  readonly hybrid: LatencySummary;
  /** A hybrid search restricted to 3 of the 10 data sources. */
  readonly filtered: LatencySummary;
}

/** Marsaglia's xorshift32, seeded: benchmarks must be reproducible, not random. */
export function generator(seed: number): () => number {
  let state = (seed ^ 0x9e3779b9) >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state / 4294967296;
  };
}

const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ne',
  'ru',
  'sa',
  'ti',
  'vo',
  'ze',
  'bra',
  'cho',
  'dri',
  'fle',
  'gru',
  'pla',
  'sto',
];

/** Word n of the made-up vocabulary: its syllables spell n in base 16. */
function word(n: number): string {
  let rest = n;
  let spelled = '';
  do {
    spelled += SYLLABLES[rest % SYLLABLES.length];
    rest = Math.floor(rest / SYLLABLES.length);
  } while (rest > 0);
  return spelled;
}

/** Zipf-distributed word numbers (exponent 1), as word frequencies in real text roughly are. */
function zipf(random: () => number): () => number {
  const cumulative = new Float64Array(VOCABULARY);
  let total = 0;
  for (let rank = 0; rank < VOCABULARY; rank += 1) {
    total += 1 / (rank + 1);
    cumulative[rank] = total;
  }
  return () => {
    const target = random() * total;
    let low = 0;
    let high = VOCABULARY - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((cumulative[middle] ?? 0) < target) low = middle + 1;
      else high = middle;
    }
    return low;
  };
}

export function syntheticTexts(
  count: number,
  seed: number,
  wordsPerChunk = WORDS_PER_CHUNK,
): { title: string; text: string }[] {
  const random = generator(seed);
  const next = zipf(random);
  const texts: { title: string; text: string }[] = [];
  for (let i = 0; i < count; i += 1) {
    const title = Array.from({ length: 5 }, () => word(next())).join(' ');
    const sentences: string[] = [];
    for (let words = 0; words < wordsPerChunk; words += 12) {
      sentences.push(`${Array.from({ length: 12 }, () => word(next())).join(' ')}.`);
    }
    texts.push({ title, text: sentences.join(' ') });
  }
  return texts;
}

async function measureSize(
  size: number,
  settings: SemanticSearchSettings,
  log: (line: string) => void,
): Promise<SizeResult> {
  const embedder = new OfflineHashEmbedder();
  const orgId = `org_bench_${size}`;
  const texts = syntheticTexts(size, size);
  const heapBefore = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
  const started = performance.now();
  const index = new EmbeddedIndex();
  const batch = 1_000;
  for (let start = 0; start < size; start += batch) {
    const chunks: IndexedChunk[] = texts.slice(start, start + batch).map(({ title, text }, i) => ({
      chunk_id: `chk_${start + i}`,
      org_id: orgId,
      data_source_id: `ds_${(start + i) % DATA_SOURCES}`,
      document_id: `doc_${Math.floor((start + i) / 3)}`,
      document_title: title,
      document_url: null,
      heading_path: [],
      text,
      position: (start + i) % 3,
      document_hash: 'bench',
      embedder_id: embedder.id,
      embedding: Array.from(embedder.embedOne(`${title}\n${text}`)),
    }));
    await index.upsert(chunks);
  }
  const indexSeconds = (performance.now() - started) / 1000;
  const heapAfter = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
  log(
    `${size.toLocaleString('en-US')} chunks embedded and indexed in ${indexSeconds.toFixed(1)} s`,
  );

  // Queries: 4 to 8 consecutive words of a random chunk, as a user might half-remember them.
  const random = generator(size + 1);
  const queries = Array.from({ length: settings.warmupQueries + settings.queries }, () => {
    const source = texts[Math.floor(random() * texts.length)]?.text.split(' ') ?? [];
    const length = 4 + Math.floor(random() * 5);
    const from = Math.floor(random() * Math.max(1, source.length - length));
    return source
      .slice(from, from + length)
      .join(' ')
      .replace(/\./g, '');
  });

  const filter: SearchFilter = { orgId };
  const filtered: SearchFilter = { orgId, dataSourceIds: ['ds_1', 'ds_4', 'ds_7'] };
  const depth = RETRIEVAL_TUNING.candidates;
  const strategy = strategySettingsFor(embedder.id);
  const samples = {
    embed: [] as number[],
    knn: [] as number[],
    bm25: [] as number[],
    fusion: [] as number[],
    hybrid: [] as number[],
    filtered: [] as number[],
  };
  for (const [n, query] of queries.entries()) {
    const measured = n >= settings.warmupQueries;
    const t0 = performance.now();
    const [vector = []] = await embedder.embed([query]);
    const t1 = performance.now();
    const knn = await index.knn(filter, vector, embedder.id, depth);
    const t2 = performance.now();
    const lexical = await lexicalSearches(index, filter, query, depth, knn, strategy);
    const t3 = performance.now();
    rankByStrategy(
      'hybrid',
      { query, knn, ...lexical, queryVector: vector },
      settings.topK,
      strategy,
    );
    const t4 = performance.now();
    const [vectorAgain = []] = await embedder.embed([query]);
    const knnFiltered = await index.knn(filtered, vectorAgain, embedder.id, depth);
    rankByStrategy(
      'hybrid',
      {
        query,
        knn: knnFiltered,
        ...(await lexicalSearches(index, filtered, query, depth, knnFiltered, strategy)),
        queryVector: vectorAgain,
      },
      settings.topK,
      strategy,
    );
    const t5 = performance.now();
    if (!measured) continue;
    samples.embed.push(t1 - t0);
    samples.knn.push(t2 - t1);
    samples.bm25.push(t3 - t2);
    samples.fusion.push(t4 - t3);
    samples.hybrid.push(t4 - t0);
    samples.filtered.push(t5 - t4);
  }
  const result = {
    chunks: size,
    indexSeconds,
    heapMiB: (heapAfter - heapBefore) / 1024 ** 2,
    embed: summarize(samples.embed),
    knn: summarize(samples.knn),
    bm25: summarize(samples.bm25),
    fusion: summarize(samples.fusion),
    hybrid: summarize(samples.hybrid),
    filtered: summarize(samples.filtered),
  };
  log(
    `${size.toLocaleString('en-US')} chunks: hybrid p50 ${result.hybrid.p50Ms.toFixed(2)} ms, p95 ${result.hybrid.p95Ms.toFixed(2)} ms`,
  );
  return result;
}

const ms = (value: number) => value.toFixed(2);

export function renderSemanticSearchSection(report: {
  readonly date: string;
  readonly machine: Machine;
  readonly command: string;
  readonly durationSeconds: number;
  readonly loadAverage: { readonly before: number; readonly after: number };
  readonly settings: SemanticSearchSettings;
  readonly results: readonly SizeResult[];
}): string {
  const { machine, settings } = report;
  const rows = report.results.flatMap((result) =>
    (
      [
        ['hybrid search (embed + k-NN + BM25 + fusion)', result.hybrid],
        ['  of which: embed the query', result.embed],
        ['  of which: k-NN', result.knn],
        ['  of which: BM25 and its feedback search', result.bm25],
        ['  of which: fusion and query likelihood', result.fusion],
        ['hybrid, 3 of 10 data sources', result.filtered],
      ] as const
    ).map(([label, latency]) => [
      result.chunks.toLocaleString('en-US'),
      label.trim(),
      ms(latency.p50Ms),
      ms(latency.p95Ms),
      ms(latency.p99Ms),
      ms(latency.maxMs),
    ]),
  );
  const build = report.results.map((result) => [
    result.chunks.toLocaleString('en-US'),
    `${result.indexSeconds.toFixed(1)} s`,
    Math.round(result.chunks / result.indexSeconds).toLocaleString('en-US'),
    result.heapMiB.toFixed(0),
  ]);
  return `## Semantic search on the embedded index

Written by \`${report.command}\` (test/bench/semantic-search.ts) on ${report.date};
the run took ${report.durationSeconds.toFixed(0)} s. Rerun it rather than editing these figures.

**Machine**: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB.toFixed(1)} GiB RAM,
${machine.os}, Node.js ${machine.node}. 1-minute load average
${report.loadAverage.before.toFixed(2)} before the run and ${report.loadAverage.after.toFixed(2)} after it (the bench itself keeps one core busy;
more means other work shared the machine and skewed the figures).

### Latency per search, top ${settings.topK} (${settings.queries} measured queries after ${settings.warmupQueries} of warm-up)

${table(['Chunks', 'Search', 'p50 ms', 'p95 ms', 'p99 ms', 'Max ms'], rows)}

### Building the index

${table(['Chunks', 'Embedded and indexed in', 'Chunks/s', 'Heap + buffers MiB'], build)}

**What is measured.** \`EmbeddedIndex\` in memory, one organization, chunks
spread over ${DATA_SOURCES} data sources. Chunks are synthetic: about ${WORDS_PER_CHUNK} words and a
5-word title each, drawn from a Zipf distribution over ${VOCABULARY.toLocaleString('en-US')} made-up words,
embedded by the offline embedder (\`offline-hash-v1/384\`), inserted 1,000 at
a time. A query is 4 to 8 consecutive words of a random chunk. One search is
what the default \`hybrid\` strategy does: embed the query, k-NN over the
organization's 384-dimension float32 vectors (through the HNSW graph of P100,
which both sizes reach; the embedded-index section compares it with the exact
scan) and BM25 over its
inverted index, ${RETRIEVAL_TUNING.candidates} candidates each, then a second BM25 search with
up to ${RETRIEVAL_TUNING.feedback.terms} expansion terms from the first fused ranking's best
${RETRIEVAL_TUNING.feedback.passages} chunks (pseudo-relevance feedback,
layers/core/use-cases/retrieval/lexical-searches.ts), then reciprocal rank fusion
(\`rankByStrategy\`) with the query-likelihood ranking of the fused
${RETRIEVAL_TUNING.likelihood.candidates} best chunks (layers/core/domain/retrieval/query-likelihood.ts;
each chunk's term counts are read once and remembered, passage-terms.ts, so
a chunk an earlier query returned costs less). The filtered row restricts the same search to 3 of the
10 data sources. Latency is wall time on one thread, no HTTP: add the
request overhead of the foundation section for the API's figure. The build
figures include the offline embedding; "Heap + buffers" is the growth of
V8's heap and array buffers while building, a rough size of the index.`;
}

/**
 * Measures, prints, and (unless `quick`) writes the section. `only`: the
 * command ran this section alone.
 */
export async function runSemanticSearchBench(options: {
  readonly quick: boolean;
  readonly only: boolean;
  readonly document: string;
}): Promise<void> {
  const settings = options.quick ? QUICK : FULL;
  const log = (line: string) => console.log(`[bench] ${line}`);
  const started = performance.now();
  const loadBefore = loadavg()[0] ?? 0;
  log(
    `semantic search: ${settings.sizes.map((size) => size.toLocaleString('en-US')).join(' and ')} chunks${options.quick ? ' (quick)' : ''}`,
  );
  const results: SizeResult[] = [];
  for (const size of settings.sizes) results.push(await measureSize(size, settings, log));
  const { quick, only } = options;
  const section = renderSemanticSearchSection({
    date: new Date().toISOString().slice(0, 10),
    machine: describeMachine(),
    command: benchCommand('semantic-search', { quick, only }),
    durationSeconds: (performance.now() - started) / 1000,
    loadAverage: { before: loadBefore, after: loadavg()[0] ?? 0 },
    settings,
    results,
  });
  console.log(`\n${section}`);
  if (quick) {
    log('quick run: docs/benchmarks.md left as it was');
    return;
  }
  writeSection(options.document, 'semantic-search', section);
  log(`wrote the semantic-search section of ${options.document}`);
}
