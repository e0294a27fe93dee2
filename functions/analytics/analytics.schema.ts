import * as z from 'zod/mini';
import { GRANULARITIES } from '../../layers/core/domain/analytics';
import { isId } from '../../layers/core/domain/ids';
import { queryDate } from '../../layers/core/http/date.schema';

/** GET /api/v1/analytics (spec): dates required, agent optional, granularity default `day`. */
export const analyticsQuery = z.strictObject({
  start_date: queryDate,
  end_date: queryDate,
  agent_id: z.optional(
    z.string().check(z.refine((value) => isId('agent', value), 'must be an agt_ id')),
  ),
  granularity: z._default(z.enum(GRANULARITIES), 'day'),
});

/** The legacy dashboard takes no granularity: it is daily. */
export const legacyDashboardQuery = z.omit(analyticsQuery, { granularity: true });

export const analyticsResult = z.object({
  metrics: z.object({
    total_queries: z.int(),
    unique_users: z
      .int()
      .check(
        z.describe(
          'How many people asked in the range: each signed-in user counted once by their user id, and each API key once for the program using it, however many conversations they had',
        ),
      ),
    avg_latency_ms: z.int(),
    accuracy_rate: z.nullable(z.number()),
    citation_rate: z.nullable(z.number()),
    avg_groundedness: z.nullable(
      z
        .number()
        .check(
          z.describe(
            "The mean groundedness (0–1, see the query result's metadata.groundedness) of the range's answers that cite at least one source; null when there are none",
          ),
        ),
    ),
    /** What answers billed to the service's provider cost. */
    total_cost_usd: z.number(),
    /** Answers billed to the organization's own model keys, at list price, apart from ours. */
    model_key_cost_usd: z.number(),
    model_key_queries: z.int(),
    total_tokens_input: z.int(),
    total_tokens_output: z.int(),
  }),
  time_series: z.array(
    z.object({
      timestamp: z.string(),
      queries: z.int(),
      latency_p50: z.int(),
      latency_p95: z.int(),
    }),
  ),
});
