/**
 * The person or program behind an interaction, as analytics counts users:
 * the signed-in user's id, or the API key's id for a program. A person asking
 * in eleven conversations is one user, not eleven. Interactions recorded
 * before either was kept fall back to their conversation, the best there is.
 */
export function askerOf(interaction: {
  readonly user_id?: string | null;
  readonly key_id: string | null;
  readonly session_id: string;
}): string {
  return interaction.user_id ?? interaction.key_id ?? `session:${interaction.session_id}`;
}

/**
 * Latency histogram buckets (upper bounds, ms), roughly ×1.25 apart from
 * 10 ms to 2 min: p50/p95 read from a histogram are off by at most one
 * bucket (≤ 25 %), and a rollup stores a fixed, small number of counters
 * however many interactions it sums (ARCHITECTURE.md: analytics never scans
 * interactions).
 */
export const LATENCY_BUCKETS_MS: readonly number[] = (() => {
  const bounds: number[] = [];
  for (let bound = 10; bound < 120_000; bound = Math.ceil(bound * 1.25)) bounds.push(bound);
  bounds.push(120_000);
  return bounds;
})();

/** Index of the bucket a latency falls in (the last bucket takes everything above). */
export function latencyBucket(latencyMs: number): number {
  const index = LATENCY_BUCKETS_MS.findIndex((bound) => latencyMs <= bound);
  return index === -1 ? LATENCY_BUCKETS_MS.length - 1 : index;
}

/** Counters of one organization, agent and hour (or a sum of such). */
export interface Rollup {
  readonly queries: number;
  readonly latency_ms_sum: number;
  readonly tokens_input: number;
  readonly tokens_output: number;
  /** Micro-dollars, so counters stay integers. */
  readonly cost_micro_usd: number;
  /**
   * What answers billed to the organization's own model keys
   * cost at list price, kept apart from `cost_micro_usd` (ours); and how many.
   */
  readonly model_key_cost_micro_usd: number;
  readonly model_key_queries: number;
  /** Answers that cite at least one source (analytics citation_rate). */
  readonly cited: number;
  /**
   * Groundedness of the answers that cite a source and were scored, summed in
   * thousandths (counters stay integers), and how many there are: the mean is
   * their ratio, so rollups of any hours add up.
   */
  readonly groundedness_milli_sum: number;
  readonly grounded: number;
  readonly positive: number;
  readonly negative: number;
  /** Count per LATENCY_BUCKETS_MS index. */
  readonly latency_histogram: readonly number[];
  /**
   * Who asked, each counted once however many conversations they had
   * (analytics unique_users): see `askerOf`.
   */
  readonly askers: ReadonlySet<string>;
}

export const EMPTY_ROLLUP: Rollup = {
  queries: 0,
  latency_ms_sum: 0,
  tokens_input: 0,
  tokens_output: 0,
  cost_micro_usd: 0,
  model_key_cost_micro_usd: 0,
  model_key_queries: 0,
  cited: 0,
  groundedness_milli_sum: 0,
  grounded: 0,
  positive: 0,
  negative: 0,
  latency_histogram: [],
  askers: new Set(),
};

export function mergeRollups(a: Rollup, b: Rollup): Rollup {
  const length = Math.max(a.latency_histogram.length, b.latency_histogram.length);
  return {
    queries: a.queries + b.queries,
    latency_ms_sum: a.latency_ms_sum + b.latency_ms_sum,
    tokens_input: a.tokens_input + b.tokens_input,
    tokens_output: a.tokens_output + b.tokens_output,
    cost_micro_usd: a.cost_micro_usd + b.cost_micro_usd,
    model_key_cost_micro_usd: a.model_key_cost_micro_usd + b.model_key_cost_micro_usd,
    model_key_queries: a.model_key_queries + b.model_key_queries,
    cited: a.cited + b.cited,
    groundedness_milli_sum: a.groundedness_milli_sum + b.groundedness_milli_sum,
    grounded: a.grounded + b.grounded,
    positive: a.positive + b.positive,
    negative: a.negative + b.negative,
    latency_histogram: Array.from(
      { length },
      (_, i) => (a.latency_histogram[i] ?? 0) + (b.latency_histogram[i] ?? 0),
    ),
    askers: new Set([...a.askers, ...b.askers]),
  };
}

/** The latency at quantile `q` (0–1) read from a histogram: the upper bound of the bucket holding it. */
export function histogramQuantile(histogram: readonly number[], q: number): number {
  const total = histogram.reduce((sum, count) => sum + count, 0);
  if (total === 0) return 0;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (let i = 0; i < histogram.length; i += 1) {
    seen += histogram[i] ?? 0;
    if (seen >= rank) return LATENCY_BUCKETS_MS[i] ?? 0;
  }
  return LATENCY_BUCKETS_MS[LATENCY_BUCKETS_MS.length - 1] ?? 0;
}

export const GRANULARITIES = ['hour', 'day', 'week', 'month'] as const;
export type Granularity = (typeof GRANULARITIES)[number];

/** The start (UTC) of the bucket an hour belongs to; weeks start on Monday (ISO 8601). */
export function bucketStart(hour: Date, granularity: Granularity): Date {
  const start = new Date(
    Date.UTC(hour.getUTCFullYear(), hour.getUTCMonth(), hour.getUTCDate(), hour.getUTCHours()),
  );
  if (granularity === 'hour') return start;
  start.setUTCHours(0);
  if (granularity === 'day') return start;
  if (granularity === 'week') {
    const sinceMonday = (start.getUTCDay() + 6) % 7;
    start.setUTCDate(start.getUTCDate() - sinceMonday);
    return start;
  }
  start.setUTCDate(1);
  return start;
}

/**
 * What one interaction adds to its hour's groundedness counters: answers
 * citing at least one source are averaged (an answer citing nothing, such as
 * "couldn't find", says nothing about grounding), in thousandths.
 */
export function groundednessCounters(interaction: {
  readonly cited_sources: number;
  readonly groundedness: number | null;
}): { readonly milli: number; readonly counted: number } {
  if (interaction.cited_sources === 0 || interaction.groundedness === null)
    return { milli: 0, counted: 0 };
  return { milli: Math.round(interaction.groundedness * 1000), counted: 1 };
}

/** Analytics metrics of a rollup. */
export function metricsOf(rollup: Rollup) {
  const rated = rollup.positive + rollup.negative;
  return {
    total_queries: rollup.queries,
    unique_users: rollup.askers.size,
    avg_latency_ms: rollup.queries === 0 ? 0 : Math.round(rollup.latency_ms_sum / rollup.queries),
    accuracy_rate: rated === 0 ? null : rollup.positive / rated,
    citation_rate: rollup.queries === 0 ? null : rollup.cited / rollup.queries,
    avg_groundedness:
      rollup.grounded === 0
        ? null
        : Math.round(rollup.groundedness_milli_sum / rollup.grounded) / 1000,
    total_cost_usd: rollup.cost_micro_usd / 1_000_000,
    // Billed to the organization's own keys, not part of total_cost_usd.
    model_key_cost_usd: rollup.model_key_cost_micro_usd / 1_000_000,
    model_key_queries: rollup.model_key_queries,
    total_tokens_input: rollup.tokens_input,
    total_tokens_output: rollup.tokens_output,
  };
}
