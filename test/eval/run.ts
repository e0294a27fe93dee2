/**
 * `npm run eval`: retrieval quality of the offline defaults on BEIR SciFact
 * (issue 3: nDCG@10 and recall@10 for each strategy), written to
 * docs/quality.md beside the published BM25 figure, and printed.
 *
 * Then (test/eval/citation-eval.ts) answer citation precision of the offline
 * answerer on the project's own small question set, written to the
 * citations section.
 *
 * Then (test/eval/http-quality-report.ts, issue 10 item 7) semantic search's
 * default and every strategy through the HTTP API on SciFact and on ArguAna,
 * the second collection, written to the collections section
 * (`npm run eval -- --collections` runs only that part; `-- --citations`
 * only the citations section).
 *
 * Then (test/eval/answers-http.ts, issue 28) answers to questions asked the
 * way users ask, over Debian documentation uploaded as files, written to the
 * answers section (`npm run eval -- --answers` runs only that part;
 * `--answers-json <path>` also writes every answer and its score).
 *
 * `npm run eval -- --retrieval`: only the in-process SciFact section (results).
 *
 * `npm run eval -- --tune`: the tuning grids, on the first 150 queries only,
 * written to the tuning section of docs/quality.md.
 *
 * `npm run eval -- --build-arguana <02-extracted-arguments folder> <dir>`:
 * writes ArguAna in BEIR's layout from the corpus as its authors publish it
 * (test/eval/arguana.ts); the eval reads it from ../shared/eval/arguana or
 * EVAL_ARGUANA_DIR.
 *
 * A measurement, not a test: it fails only when the collection is missing.
 */
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { OfflineHashEmbedder } from '../../layers/core/adapters/ai/offline-embedder';
import { DEFAULT_BM25 } from '../../layers/core/domain/retrieval/bm25';
import { RETRIEVAL_TUNING, type StrategySettings } from '../../layers/core/domain/retrieval/fusion';
import { describeMachine } from '../bench/machine';
import { buildIndex, chunkCorpus, embedChunks, searchAll } from './corpus-index';
import { splitMetrics, strategyRuns } from './evaluate';
import { writeSection } from './markdown';
import {
  PUBLISHED_BM25_FLAT_NDCG10,
  QUALITY_PREAMBLE,
  type RowKey,
  renderResults,
  renderTuning,
} from './quality-report';
import { loadScifact } from './scifact';
import { RANKED_CHUNKS, type Strategy } from './strategies';
import { currentSettings, driftFromPicks, tune, withoutLikelihood } from './tuning';

const ROOT = resolve(__dirname, '..', '..');
const DOCUMENT = join(ROOT, 'docs', 'quality.md');

const log = (line: string) => console.log(`[eval] ${line}`);

/** Chunks as large as any SciFact abstract: one chunk per document, as the published baseline indexes them. */
const WHOLE_DOCUMENTS = { maxTokens: 100_000, overlapTokens: 0 };

const ROWS: readonly {
  key: RowKey;
  label: string;
  strategy: Strategy;
  untuned?: boolean;
  before?: boolean;
}[] = [
  { key: 'similarity', label: 'similarity (k-NN only)', strategy: 'similarity' },
  { key: 'bm25', label: 'BM25 only (not a D20 strategy)', strategy: 'bm25' },
  { key: 'hybrid', label: 'hybrid (the default)', strategy: 'hybrid' },
  {
    key: 'hybrid-before',
    label: 'hybrid without query likelihood (the default before)',
    strategy: 'hybrid',
    before: true,
  },
  { key: 'mmr', label: 'mmr', strategy: 'mmr' },
  { key: 'rerank', label: 'rerank', strategy: 'rerank' },
  {
    key: 'untuned',
    label: 'hybrid, untuned RRF (k 60, equal weights)',
    strategy: 'hybrid',
    untuned: true,
  },
];

async function evaluate(): Promise<void> {
  const started = performance.now();
  const data = loadScifact();
  log(`${data.documents.length} documents, ${data.queries.length} queries`);

  const embedder = new OfflineHashEmbedder();
  const chunks = embedChunks(chunkCorpus(data.documents), embedder);
  const index = await buildIndex(chunks);
  const indexSeconds = (performance.now() - started) / 1000;
  log(`${chunks.length} chunks indexed in ${indexSeconds.toFixed(1)} s`);

  const searches = await searchAll(index, embedder, data.queries);
  // The published baseline's setup: whole documents, no chunking (BM25 only).
  const whole = embedChunks(chunkCorpus(data.documents, WHOLE_DOCUMENTS), embedder);
  const wholeSearches = await searchAll(await buildIndex(whole), embedder, data.queries);
  const settings = currentSettings();
  const untuned: StrategySettings = { ...settings, rrf: RETRIEVAL_TUNING.rrf.model };
  const before = withoutLikelihood(settings);
  const rows = ROWS.map(({ key, label, strategy, untuned: isUntuned, before: isBefore }) => ({
    key,
    label,
    metrics: splitMetrics(
      data,
      strategyRuns(strategy, searches, isUntuned ? untuned : isBefore ? before : settings),
    ),
  }));
  rows.push({
    key: 'bm25-whole',
    label: 'BM25 only, whole documents (unchunked)',
    metrics: splitMetrics(data, strategyRuns('bm25', wholeSearches, settings)),
  });
  for (const { label, metrics } of rows) {
    log(
      `${label.padEnd(44)} nDCG@10 ${metrics.all.ndcg10.toFixed(4)} (last 150 ${metrics.heldOut.ndcg10.toFixed(4)}, first 150 ${metrics.training.ndcg10.toFixed(4)})  R@10 ${metrics.all.recall10.toFixed(4)}`,
    );
  }
  log(`published BM25 flat: nDCG@10 ${PUBLISHED_BM25_FLAT_NDCG10}`);

  const { rrf, mmrLambda, rerankLexicalWeight } = settings;
  const section = renderResults({
    date: new Date().toISOString().slice(0, 10),
    machine: describeMachine(),
    durationSeconds: (performance.now() - started) / 1000,
    indexSeconds,
    documents: data.documents.length,
    chunks: chunks.length,
    wholeDocumentChunks: whole.length,
    embedderId: embedder.id,
    rows,
    settings: [
      `BM25: k1 ${DEFAULT_BM25.k1}, b ${DEFAULT_BM25.b}`,
      `hybrid: RRF k ${rrf.k}, weights ${rrf.weights?.[0]} (k-NN) and ${rrf.weights?.[1]} (BM25)`,
      `mmr: λ ${mmrLambda} over the hybrid's ${RETRIEVAL_TUNING.candidates} best, all ${RANKED_CHUNKS} picked in order`,
      `rerank: BM25 weight ${rerankLexicalWeight}, cosine ${Number((1 - rerankLexicalWeight).toFixed(2))}, over the hybrid's ${RETRIEVAL_TUNING.candidates} best`,
      `feedback: ${settings.feedback.terms} terms at most from the first fused ranking's ${settings.feedback.passages} best chunks, original query weight ${settings.feedback.originalWeight}; the second BM25 search joins the RRF with weight ${settings.feedback.rrfWeight}`,
      `query likelihood: the fused ranking's ${settings.likelihood.candidates} best chunks re-scored (Dirichlet μ ${settings.likelihood.mu}, the collection model from those chunks); its ${settings.likelihood.keep} best join the RRF with weight ${settings.likelihood.rrfWeight}`,
    ],
  });
  writeSection(DOCUMENT, QUALITY_PREAMBLE, 'results', section);
  log(`wrote the results section of ${DOCUMENT}`);
}

async function tuneAndReport(): Promise<void> {
  const data = loadScifact();
  const { loadArguana } = await import('./arguana');
  let arguana: Awaited<ReturnType<typeof loadArguana>> | undefined;
  try {
    arguana = loadArguana();
  } catch (error) {
    log(`ArguAna not tuned on: ${error instanceof Error ? error.message : String(error)}`);
  }
  const report = await tune(data, log, arguana);
  const drift = driftFromPicks(report);
  log(`picks: ${JSON.stringify(report.picks)}`);
  if (drift.length > 0) log(`the code differs from the picks for: ${drift.join(', ')}`);
  writeSection(DOCUMENT, QUALITY_PREAMBLE, 'tuning', renderTuning(report, drift));
  log(`wrote the tuning section of ${DOCUMENT}`);
}

/**
 * The `citations` section: answer citation precision and recall through the
 * HTTP API (issue 10), on the project's question set and on SciFact.
 */
async function citations(): Promise<void> {
  const started = performance.now();
  // The runtime's request logs and metrics would drown the eval's own lines.
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  const { measureCitations, renderCitationReport } = await import('./citation-report');
  const result = await measureCitations(log);
  for (const [label, scores] of [
    ['project set', result.project.scores],
    ['SciFact last 150', result.scifactHeldOut],
    ['SciFact first 150', result.scifactTraining],
  ] as const) {
    log(
      `citations, ${label}: precision ${scores.precision.toFixed(3)}, recall ${scores.recall.toFixed(3)}, honest non-answers ${scores.honestNoAnswer}/${scores.unanswerable}`,
    );
  }
  const section = renderCitationReport({
    date: new Date().toISOString().slice(0, 10),
    machine: describeMachine(),
    durationSeconds: (performance.now() - started) / 1000,
    result,
  });
  writeSection(DOCUMENT, QUALITY_PREAMBLE, 'citations', section);
  log(`wrote the citations section of ${DOCUMENT}`);
}

/** The `collections` section: both collections through the HTTP API (issue 10 item 7). */
async function collections(): Promise<void> {
  const started = performance.now();
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  const { measureCollections, renderCollections } = await import('./http-quality-report');
  const measured = await measureCollections(log);
  for (const measure of [measured.scifact, measured.arguana]) {
    if (measure === undefined) continue;
    for (const [variant, metrics] of measure.http) {
      const [first] = measure.splits;
      const m = first === undefined ? undefined : metrics.get(first.label);
      log(
        `${measure.name} over HTTP, ${variant.padEnd(10)} nDCG@10 ${m?.ndcg10.toFixed(4)}  R@10 ${m?.recall10.toFixed(4)}  R@100 ${m?.recall100.toFixed(4)} (${first?.label})`,
      );
    }
  }
  const section = renderCollections({
    date: new Date().toISOString().slice(0, 10),
    machine: describeMachine(),
    durationSeconds: (performance.now() - started) / 1000,
    collections: measured,
  });
  writeSection(DOCUMENT, QUALITY_PREAMBLE, 'collections', section);
  log(`wrote the collections section of ${DOCUMENT}`);
}

async function buildArguanaCollection(): Promise<void> {
  const at = process.argv.indexOf('--build-arguana');
  const [source, target] = process.argv.slice(at + 1, at + 3);
  if (source === undefined || target === undefined) {
    throw new Error('usage: npm run eval -- --build-arguana <02-extracted-arguments folder> <dir>');
  }
  const { buildArguana, writeArguana } = await import('./arguana');
  const build = buildArguana(source);
  writeArguana(build, target);
  log(
    `ArguAna: ${build.documents.length} documents, ${build.queries.length} queries, ${build.qrels.test.length} test and ${build.qrels.validation.length} validation judgements written to ${target}`,
  );
}

/**
 * The `answers` section: answers to questions asked the way users ask, over
 * Debian documentation uploaded as files (issue 28). `--answers-json <path>`
 * also writes every question's answer and score.
 */
async function answers(): Promise<void> {
  const started = performance.now();
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  const { runAnswersEval } = await import('./answers-http');
  const { renderAnswersReport, splitSummaries, writeAnswersJson } = await import('./answer-report');
  const run = await runAnswersEval(log);
  for (const [split, summary] of Object.entries(splitSummaries(run.answers))) {
    log(
      `answers, ${split.padEnd(7)} right ${summary.right}/${summary.asked}, cited ${summary.cited}, abstained ${summary.abstained}, hit@1 ${summary.hit1}, p50 ${Math.round(summary.p50)} ms`,
    );
  }
  const input = {
    date: new Date().toISOString().slice(0, 10),
    commit: currentCommit(),
    machine: describeMachine(),
    durationSeconds: (performance.now() - started) / 1000,
    run,
  };
  writeSection(DOCUMENT, QUALITY_PREAMBLE, 'answers', renderAnswersReport(input));
  log(`wrote the answers section of ${DOCUMENT}`);
  const jsonAt = process.argv.indexOf('--answers-json');
  if (jsonAt >= 0) {
    const path = process.argv[jsonAt + 1];
    if (path === undefined)
      throw new Error('usage: npm run eval -- --answers --answers-json <path>');
    writeAnswersJson(resolve(path), input);
    log(`wrote every answer to ${resolve(path)}`);
  }
}

/** The commit the eval runs at, with `+` when tracked files have changed since. */
function currentCommit(): string {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT })
      .toString()
      .trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], {
      cwd: ROOT,
    })
      .toString()
      .trim();
    return dirty === '' ? commit : `${commit}+`;
  } catch {
    return 'unknown';
  }
}

/** The `citation-tuning` section: the offline answerer's support gate (P175). */
async function tuneCitationGate(): Promise<void> {
  const { tuneCitations } = await import('./citation-tuning');
  const section = await tuneCitations(loadScifact(), new OfflineHashEmbedder(), log);
  writeSection(DOCUMENT, QUALITY_PREAMBLE, 'citation-tuning', section);
  log(`wrote the citation-tuning section of ${DOCUMENT}`);
}

(process.argv.includes('--build-arguana')
  ? buildArguanaCollection()
  : process.argv.includes('--collections')
    ? collections()
    : process.argv.includes('--answers') || process.argv.includes('--answers-json')
      ? answers()
      : process.argv.includes('--citations')
        ? citations()
        : process.argv.includes('--tune-citations')
          ? tuneCitationGate()
          : process.argv.includes('--tune')
            ? tuneAndReport()
            : process.argv.includes('--retrieval')
              ? evaluate()
              : citations().then(evaluate).then(collections).then(answers)
).catch((error: unknown) => {
  console.error('[eval] failed:', error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
