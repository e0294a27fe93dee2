/**
 * Retrieval metrics computed as trec_eval computes them (`trec_eval -c -m
 * ndcg_cut.10 -m recall.10`), so our figures sit beside published ones:
 *
 * - a run is ranked by score, highest first, ties broken by document id in
 *   decreasing string order (trec_eval's own tie-break);
 * - nDCG@k: gains are the qrels values, discounted by log2(rank + 1); the
 *   ideal ranking is every judged document by decreasing gain, cut at k;
 * - recall@k: relevant documents (gain > 0) in the top k over all relevant;
 * - P@k (`-m P.30`): relevant documents in the top k over k, even when the
 *   run holds fewer than k documents;
 * - `-c`: the mean is over every judged query; a query the run does not
 *   answer counts 0.
 */

/** document id → score for one query. */
export type QueryRun = ReadonlyMap<string, number>;
/** document id → relevance for one query. */
export type QueryJudgements = ReadonlyMap<string, number>;

/** The run's document ids in trec_eval order. */
export function rankDocuments(run: QueryRun): string[] {
  return [...run.entries()]
    .sort(([idA, scoreA], [idB, scoreB]) => scoreB - scoreA || (idA < idB ? 1 : idA > idB ? -1 : 0))
    .map(([id]) => id);
}

export function ndcgAt(k: number, run: QueryRun, judgements: QueryJudgements): number {
  const ranked = rankDocuments(run).slice(0, k);
  const dcg = ranked.reduce(
    (sum, id, index) => sum + (judgements.get(id) ?? 0) / Math.log2(index + 2),
    0,
  );
  const ideal = [...judgements.values()]
    .filter((gain) => gain > 0)
    .sort((a, b) => b - a)
    .slice(0, k)
    .reduce((sum, gain, index) => sum + gain / Math.log2(index + 2), 0);
  return ideal > 0 ? dcg / ideal : 0;
}

export function recallAt(k: number, run: QueryRun, judgements: QueryJudgements): number {
  const relevant = [...judgements.entries()].filter(([, gain]) => gain > 0).map(([id]) => id);
  if (relevant.length === 0) return 0;
  const top = new Set(rankDocuments(run).slice(0, k));
  return relevant.filter((id) => top.has(id)).length / relevant.length;
}

export function precisionAt(k: number, run: QueryRun, judgements: QueryJudgements): number {
  if (k < 1) return 0;
  const top = rankDocuments(run).slice(0, k);
  return top.filter((id) => (judgements.get(id) ?? 0) > 0).length / k;
}

export interface MeanMetrics {
  readonly queries: number;
  readonly ndcg10: number;
  readonly recall10: number;
  /** Recall@100: beside published R@100 figures; a run shorter than 100 documents is read as it is. */
  readonly recall100: number;
  /** Precision@30, as trec_eval's `P_30`. */
  readonly precision30: number;
}

/**
 * Means over `queryIds` (all judged, as with `-c`): a query missing from
 * `runs` scores 0.
 */
export function meanMetrics(
  queryIds: readonly string[],
  runs: ReadonlyMap<string, QueryRun>,
  qrels: ReadonlyMap<string, QueryJudgements>,
): MeanMetrics {
  let ndcg = 0;
  let recall = 0;
  let recall100 = 0;
  let precision30 = 0;
  for (const id of queryIds) {
    const judgements = qrels.get(id) ?? new Map<string, number>();
    const run = runs.get(id) ?? new Map<string, number>();
    ndcg += ndcgAt(10, run, judgements);
    recall += recallAt(10, run, judgements);
    recall100 += recallAt(100, run, judgements);
    precision30 += precisionAt(30, run, judgements);
  }
  const count = queryIds.length;
  return {
    queries: count,
    ndcg10: count > 0 ? ndcg / count : 0,
    recall10: count > 0 ? recall / count : 0,
    recall100: count > 0 ? recall100 / count : 0,
    precision30: count > 0 ? precision30 / count : 0,
  };
}
