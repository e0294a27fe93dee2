/**
 * `npm run eval -- --tune`: the grids behind every tuned setting, on the
 * first 150 queries only (the eval README's training split). The held-out
 * queries are not even searched here. The settings in the code
 * (`DEFAULT_HASHING_SCHEME`, `DEFAULT_BM25`, `RETRIEVAL_TUNING`) are the
 * picks; the report says whether they still are.
 */
import {
  DEFAULT_HASHING_SCHEME,
  type HashingScheme,
  OfflineHashEmbedder,
} from '../../layers/core/adapters/ai/offline-embedder';
import { type Bm25Parameters, DEFAULT_BM25 } from '../../layers/core/domain/retrieval/bm25';
import {
  type FeedbackSettings,
  RETRIEVAL_TUNING,
  type StrategySettings,
  strategySettingsFor,
} from '../../layers/core/domain/retrieval/fusion';
import type { Arguana } from './arguana';
import { withoutQueryDocument } from './collection';
import {
  buildIndex,
  chunkCorpus,
  chunkDocuments,
  EVAL_ORG,
  embedChunks,
  searchAll,
  toParsedDocument,
} from './corpus-index';
import { strategyRuns, TRAINING_QUERIES, trainingMetrics } from './evaluate';
import { type MeanMetrics, meanMetrics } from './metrics';
import { fitQuery } from './retrieval-http';
import type { Scifact } from './scifact';
import type { Searches, Strategy } from './strategies';

export interface GridRow<T> {
  readonly setting: T;
  readonly metrics: MeanMetrics;
}

export interface TuningReport {
  readonly bm25: readonly GridRow<Bm25Parameters>[];
  readonly embedder: readonly GridRow<HashingScheme>[];
  readonly rrf: readonly GridRow<{ k: number; knnWeight: number }>[];
  readonly mmr: readonly GridRow<number>[];
  readonly rerank: readonly GridRow<number>[];
  /** The feedback grid: SciFact's first 150 and, when the collection is here, ArguAna's validation sample. */
  readonly feedback: readonly FeedbackRow[];
  /** ArguAna validation queries the feedback grid searched (0: ArguAna absent). */
  readonly arguanaQueries: number;
  readonly picks: {
    readonly bm25: Bm25Parameters;
    readonly embedder: HashingScheme;
    readonly rrf: { k: number; knnWeight: number };
    readonly mmrLambda: number;
    readonly rerankLexicalWeight: number;
    readonly feedback: FeedbackSettings;
  };
  readonly seconds: number;
}

export interface FeedbackRow {
  readonly setting: FeedbackSettings;
  readonly scifact: MeanMetrics;
  readonly arguana?: MeanMetrics;
}

/**
 * Feedback settings tried; the first row is feedback off (the hybrid before).
 * At most 20 expansion terms keeps the second search cheap.
 */
const FEEDBACK_GRID: FeedbackSettings[] = [
  { passages: 0, terms: 0, originalWeight: 1, rrfWeight: 0 },
  ...[3, 5, 10].flatMap((passages) =>
    [10, 20].flatMap((terms) =>
      [0.5, 0.7].flatMap((originalWeight) =>
        [0.5, 1].map((rrfWeight) => ({ passages, terms, originalWeight, rrfWeight })),
      ),
    ),
  ),
];

/** ArguAna's validation queries the feedback grid searches: every 3rd, to bound the run's time. */
export const ARGUANA_TUNING_EVERY = 3;

const BM25_GRID: Bm25Parameters[] = [0.6, 0.9, 1.2, 1.5].flatMap((k1) =>
  [0.3, 0.4, 0.6, 0.75].map((b) => ({ k1, b })),
);

const EMBEDDER_GRID: HashingScheme[] = [0, 0.5].flatMap((bigramWeight) => [
  { unigramWeight: 1, bigramWeight, charNgramWeight: 0, charNgramSizes: [3] },
  ...[0.3, 0.5, 0.7, 1].flatMap((charNgramWeight) =>
    [[3], [4], [3, 4]].map((charNgramSizes) => ({
      unigramWeight: 1,
      bigramWeight,
      charNgramWeight,
      charNgramSizes,
    })),
  ),
]);

const RRF_GRID = [1, 5, 10, 30, 60].flatMap((k) =>
  [0.1, 0.2, 0.3, 0.5, 1].map((knnWeight) => ({ k, knnWeight })),
);
const MMR_GRID = [0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1];
const RERANK_GRID = [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];

/** MMR is tuned for diversity at a bounded price: the lowest λ within this much nDCG@10 of hybrid. */
export const MMR_MAX_NDCG_LOSS = 0.01;

export async function tune(
  data: Scifact,
  log: (line: string) => void,
  arguana?: Arguana,
): Promise<TuningReport> {
  const started = performance.now();
  const training = data.queries.slice(0, TRAINING_QUERIES);
  const trainingOnly = { ...data, queries: training };
  const plain = chunkCorpus(data.documents);

  // 1. The embedder alone (similarity): BM25 plays no part.
  log(`offline embedder: ${EMBEDDER_GRID.length} hashing schemes`);
  const embedderRows: GridRow<HashingScheme>[] = [];
  for (const scheme of EMBEDDER_GRID) {
    const candidate = new OfflineHashEmbedder({ scheme });
    const index = await buildIndex(embedChunks(plain, candidate));
    const searches = await searchAll(
      index,
      candidate,
      training,
      withoutFeedback(currentSettings()),
    );
    embedderRows.push({
      setting: scheme,
      metrics: metricsOf('similarity', searches, trainingOnly, currentSettings()),
    });
  }
  const embedderPick = best(embedderRows).setting;
  const embedder = new OfflineHashEmbedder({ scheme: embedderPick });
  const chunks = embedChunks(plain, embedder);

  // 2. BM25 alone: the embedder plays no part.
  log(`BM25: ${BM25_GRID.length} settings`);
  const bm25: GridRow<Bm25Parameters>[] = [];
  for (const setting of BM25_GRID) {
    const searches = await searchAll(
      await buildIndex(chunks, setting),
      embedder,
      training,
      withoutFeedback(currentSettings()),
    );
    bm25.push({ setting, metrics: metricsOf('bm25', searches, trainingOnly, currentSettings()) });
  }
  const bm25Pick = pickBm25(bm25);

  // 3. Fusion, on the searches of the picked embedder and BM25, without feedback.
  log('fusion settings, with the picked embedder and BM25');
  const chunkIndex = await buildIndex(chunks, bm25Pick);
  const searches = await searchAll(
    chunkIndex,
    embedder,
    training,
    withoutFeedback(currentSettings()),
  );
  const rrf = RRF_GRID.map((setting) => ({
    setting,
    metrics: metricsOf('hybrid', searches, trainingOnly, {
      ...currentSettings(),
      rrf: { k: setting.k, weights: [setting.knnWeight, 1] },
    }),
  }));
  const rrfPick = best(rrf).setting;
  const tunedRrf = { k: rrfPick.k, weights: [rrfPick.knnWeight, 1] };
  const mmr = MMR_GRID.map((lambda) => ({
    setting: lambda,
    metrics: metricsOf('mmr', searches, trainingOnly, {
      ...currentSettings(),
      rrf: tunedRrf,
      mmrLambda: lambda,
    }),
  }));
  const rerank = RERANK_GRID.map((weight) => ({
    setting: weight,
    metrics: metricsOf('rerank', searches, trainingOnly, {
      ...currentSettings(),
      rrf: tunedRrf,
      rerankLexicalWeight: weight,
    }),
  }));
  const hybridNdcg = best(rrf).metrics.ndcg10;
  const mmrPick =
    mmr.find((row) => row.metrics.ndcg10 >= hybridNdcg - MMR_MAX_NDCG_LOSS)?.setting ?? 1;

  // 4. Feedback, on the tuned fusion, on both collections' tuning splits.
  const fused = {
    ...currentSettings(),
    rrf: tunedRrf,
    mmrLambda: mmrPick,
    rerankLexicalWeight: best(rerank).setting,
  };
  const arguanaQueries =
    arguana?.validation.filter((_, index) => index % ARGUANA_TUNING_EVERY === 0) ?? [];
  log(`feedback: ${FEEDBACK_GRID.length} settings, ArguAna ${arguanaQueries.length} queries`);
  const arguanaIndex =
    arguana === undefined
      ? undefined
      : await buildIndex(
          embedChunks(
            chunkDocuments(
              arguana.documents.map((document) => ({
                id: document.id,
                parsed: toParsedDocument(document),
              })),
              { orgId: EVAL_ORG, dataSourceId: 'ds_arguana' },
            ),
            embedder,
          ),
          bm25Pick,
        );
  const arguanaSearched = arguana?.queries
    .filter((query) => arguanaQueries.includes(query.id))
    // Cut as semantic search would cut them (a few arguments are longer than it accepts).
    .map((query) => ({ id: query.id, text: fitQuery(query.text) }));
  const feedback: FeedbackRow[] = [];
  for (const setting of FEEDBACK_GRID) {
    const settings = { ...fused, feedback: setting };
    const scifactSearches = await searchAll(chunkIndex, embedder, training, settings);
    const row: FeedbackRow = {
      setting,
      scifact: metricsOf('hybrid', scifactSearches, trainingOnly, settings),
    };
    if (arguana !== undefined && arguanaIndex !== undefined && arguanaSearched !== undefined) {
      const runs = strategyRuns(
        'hybrid',
        await searchAll(arguanaIndex, embedder, arguanaSearched, settings),
        settings,
      );
      for (const [id, run] of runs) runs.set(id, withoutQueryDocument(arguana, id, run));
      feedback.push({ ...row, arguana: meanMetrics(arguanaQueries, runs, arguana.qrels) });
    } else {
      feedback.push(row);
    }
  }

  return {
    bm25,
    embedder: embedderRows,
    rrf,
    mmr,
    rerank,
    feedback,
    arguanaQueries: arguanaQueries.length,
    picks: {
      bm25: bm25Pick,
      embedder: embedderPick,
      rrf: rrfPick,
      mmrLambda: mmrPick,
      rerankLexicalWeight: best(rerank).setting,
      feedback: bestFeedback(feedback).setting,
    },
    seconds: (performance.now() - started) / 1000,
  };
}

/** The mean nDCG@10 over the collections a feedback row measured. */
export function feedbackScore(row: FeedbackRow): number {
  return row.arguana === undefined
    ? row.scifact.ndcg10
    : (row.scifact.ndcg10 + row.arguana.ndcg10) / 2;
}

/** The feedback row with the best mean nDCG@10 over both collections; the first on a tie. */
function bestFeedback(rows: readonly FeedbackRow[]): FeedbackRow {
  return rows.reduce((winner, row) => (feedbackScore(row) > feedbackScore(winner) ? row : winner));
}

/**
 * BM25 keeps Anserini's k1 0.9, b 0.4 (the published baseline's) unless a
 * setting beats them by more than this on the training split: the "BM25
 * only" row then compares like with like.
 */
export const BM25_MIN_GAIN = 0.005;

function pickBm25(rows: readonly GridRow<Bm25Parameters>[]): Bm25Parameters {
  const baseline = rows.find(
    (row) => row.setting.k1 === DEFAULT_BM25.k1 && row.setting.b === DEFAULT_BM25.b,
  );
  const winner = best(rows);
  return baseline && winner.metrics.ndcg10 - baseline.metrics.ndcg10 <= BM25_MIN_GAIN
    ? baseline.setting
    : winner.setting;
}

/** The settings the code uses now with the offline embedder. */
export function currentSettings(): StrategySettings {
  return strategySettingsFor(new OfflineHashEmbedder().id);
}

/** `settings` with the feedback search off: the hybrid as it ranked before feedback. */
export function withoutFeedback(settings: StrategySettings): StrategySettings {
  return { ...settings, feedback: { ...settings.feedback, rrfWeight: 0 } };
}

/** `settings` without the query-likelihood ranking: the hybrid as it ranked before it. */
export function withoutLikelihood(settings: StrategySettings): StrategySettings {
  return { ...settings, likelihood: { ...settings.likelihood, rrfWeight: 0 } };
}

/** Whether the code's settings are the picks (else the report says which are not). */
export function driftFromPicks(report: TuningReport): string[] {
  const drift: string[] = [];
  const { picks } = report;
  if (picks.bm25.k1 !== DEFAULT_BM25.k1 || picks.bm25.b !== DEFAULT_BM25.b) drift.push('BM25');
  if (JSON.stringify(picks.embedder) !== JSON.stringify(DEFAULT_HASHING_SCHEME)) {
    drift.push('hashing scheme');
  }
  const offline = RETRIEVAL_TUNING.rrf.offline;
  if (picks.rrf.k !== offline.k || picks.rrf.knnWeight !== offline.weights[0]) drift.push('RRF');
  if (picks.mmrLambda !== RETRIEVAL_TUNING.mmr.lambda) drift.push('MMR λ');
  if (picks.rerankLexicalWeight !== RETRIEVAL_TUNING.rerank.lexicalWeight) {
    drift.push('rerank weight');
  }
  if (JSON.stringify(picks.feedback) !== JSON.stringify(RETRIEVAL_TUNING.feedback)) {
    drift.push('feedback');
  }
  return drift;
}

function metricsOf(
  strategy: Strategy,
  searches: ReadonlyMap<string, Searches>,
  data: Scifact,
  settings: StrategySettings,
): MeanMetrics {
  return trainingMetrics(data, strategyRuns(strategy, searches, settings));
}

/** The row with the highest nDCG@10; the first one on a tie (grids list the simpler settings first). */
function best<T>(rows: readonly GridRow<T>[]): GridRow<T> {
  return rows.reduce((winner, row) => (row.metrics.ndcg10 > winner.metrics.ndcg10 ? row : winner));
}
