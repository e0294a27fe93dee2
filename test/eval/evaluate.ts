import type { StrategySettings } from '../../layers/core/domain/retrieval/fusion';
import { type MeanMetrics, meanMetrics } from './metrics';
import type { Scifact } from './scifact';
import { documentRun, rankChunks, type Searches, type Strategy } from './strategies';

/** The eval README's splits: tune on the first 150 queries of queries.test.tsv, hold out the last 150. */
export const TRAINING_QUERIES = 150;

export interface SplitMetrics {
  readonly all: MeanMetrics;
  /** The last 150: never looked at while tuning. */
  readonly heldOut: MeanMetrics;
  /** The first 150: what everything was tuned on. */
  readonly training: MeanMetrics;
}

export function splits(data: Scifact): {
  all: string[];
  heldOut: string[];
  training: string[];
} {
  const ids = data.queries.map((query) => query.id);
  return {
    all: ids,
    heldOut: ids.slice(TRAINING_QUERIES),
    training: ids.slice(0, TRAINING_QUERIES),
  };
}

/** Document-level runs of one strategy for every searched query. */
export function strategyRuns(
  strategy: Strategy,
  searches: ReadonlyMap<string, Searches>,
  settings: StrategySettings,
): Map<string, Map<string, number>> {
  const runs = new Map<string, Map<string, number>>();
  for (const [queryId, searched] of searches) {
    const { chunks, ordered } = rankChunks(strategy, searched, settings);
    runs.set(queryId, documentRun(chunks, ordered));
  }
  return runs;
}

export function splitMetrics(
  data: Scifact,
  runs: ReadonlyMap<string, ReadonlyMap<string, number>>,
): SplitMetrics {
  const { all, heldOut, training } = splits(data);
  return {
    all: meanMetrics(all, runs, data.qrels),
    heldOut: meanMetrics(heldOut, runs, data.qrels),
    training: meanMetrics(training, runs, data.qrels),
  };
}

/** Training-split metrics only: what tuning may look at. */
export function trainingMetrics(
  data: Scifact,
  runs: ReadonlyMap<string, ReadonlyMap<string, number>>,
): MeanMetrics {
  return meanMetrics(splits(data).training, runs, data.qrels);
}
