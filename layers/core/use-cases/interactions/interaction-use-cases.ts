import { type AgentAccess, ALL_AGENTS, mayUseAgent, usableBy } from '../../domain/agent-access';
import {
  bucketStart,
  EMPTY_ROLLUP,
  type Granularity,
  histogramQuantile,
  mergeRollups,
  metricsOf,
  type Rollup,
} from '../../domain/analytics';
import { ConflictError, NotFoundError } from '../../domain/errors';
import type { Feedback, Interaction } from '../../domain/interaction';
import {
  type InteractionSearch,
  isSearching,
  matchesInteractionSearch,
} from '../../domain/interaction-search';
import { NO_SOURCES_ANSWER } from '../../domain/no-answer';
import { type Page, type PageRequest, pageOf } from '../../domain/pagination';
import type { Clock } from '../../ports/clock.port';
import type {
  AnalyticsRollups,
  InteractionFilter,
  InteractionRepository,
} from '../../ports/interaction-repository.port';
import { domainEvent } from '../events/domain-events';

export interface InteractionDependencies {
  readonly interactions: InteractionRepository;
  readonly rollups: AnalyticsRollups;
  readonly clock: Clock;
}

/**
 * A user whose groups restrict their agents lists, and counts, only the
 * interactions of those agents; filtering by another agent finds nothing, as
 * for an agent that does not exist. A text search or the answered filter
 * reads the filtered range and narrows it before cutting the page, so
 * `total` counts what matches.
 */
export async function listInteractions(
  deps: Pick<InteractionDependencies, 'interactions'>,
  orgId: string,
  filter: InteractionFilter,
  page: PageRequest,
  access: AgentAccess = ALL_AGENTS,
  search: InteractionSearch = {},
): Promise<Page<Interaction>> {
  const narrowed = isSearching(search);
  if (access.kind === 'all' && !narrowed) return deps.interactions.list(orgId, filter, page);
  if (filter.agentId !== undefined && !mayUseAgent(access, filter.agentId)) {
    return { items: [], total: 0 };
  }
  const all = await deps.interactions.list(orgId, filter, {
    limit: Number.MAX_SAFE_INTEGER,
    offset: 0,
  });
  return pageOf(
    usableBy(access, all.items, (interaction) => interaction.agent_id).filter((interaction) =>
      matchesInteractionSearch(interaction, search, NO_SOURCES_ANSWER),
    ),
    page,
  );
}

/**
 * Records feedback on an interaction (it may change its mind: the latest
 * wins). The change is conditional on the feedback read, so the
 * `interaction.feedback` event stored with it and the rollup counters each
 * count it exactly once.
 */
export async function giveFeedback(
  deps: InteractionDependencies,
  orgId: string,
  interactionId: string,
  input: { feedback: Feedback; comment?: string | null | undefined },
  access: AgentAccess = ALL_AGENTS,
): Promise<Interaction> {
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const current = await deps.interactions.get(orgId, interactionId);
    // An interaction with an agent the user may not use is answered as one that does not exist.
    if (!current || !mayUseAgent(access, current.agent_id))
      throw new NotFoundError(`No interaction ${interactionId}`);
    const comment = input.comment ?? null;
    const next: Interaction = { ...current, feedback: input.feedback, feedback_comment: comment };
    const event = domainEvent(
      'interaction.feedback',
      orgId,
      { interaction: next, feedback: input.feedback, comment },
      deps.clock.now(),
    );
    const updated = await deps.interactions.setFeedback(orgId, interactionId, {
      expectedFeedback: current.feedback,
      feedback: input.feedback,
      comment,
      events: [event],
    });
    if (updated) {
      await deps.rollups.recordFeedback(orgId, current, current.feedback, input.feedback);
      return updated;
    }
  }
  throw new ConflictError(`Feedback on ${interactionId} is changing concurrently; retry`);
}

export interface AnalyticsRequest {
  /** First day, inclusive. */
  readonly from: Date;
  /** The day after the last day: end dates are inclusive whole UTC days. */
  readonly to: Date;
  readonly agentId?: string | undefined;
  readonly granularity: Granularity;
}

export interface TimeSeriesPoint {
  readonly timestamp: string;
  readonly queries: number;
  readonly latency_p50: number;
  readonly latency_p95: number;
}

/**
 * Analytics metrics and a time series with p50/p95 per bucket, from hourly rollups
 * only. A user whose groups restrict their agents sees the sums of
 * those agents only (another agent's id gives what an unknown id gives).
 */
export async function getAnalytics(
  deps: Pick<InteractionDependencies, 'rollups'>,
  orgId: string,
  request: AnalyticsRequest,
  access: AgentAccess = ALL_AGENTS,
) {
  const hours = usableBy(
    access,
    await deps.rollups.read(orgId, { from: request.from, to: request.to }, request.agentId),
    (hour) => hour.agentId,
  );
  const buckets = new Map<number, Rollup>();
  for (
    let at = bucketStart(request.from, request.granularity);
    at < request.to;
    at = nextBucket(at, request.granularity)
  ) {
    buckets.set(at.getTime(), EMPTY_ROLLUP);
  }
  let total = EMPTY_ROLLUP;
  for (const { hour, rollup } of hours) {
    total = mergeRollups(total, rollup);
    const key = bucketStart(hour, request.granularity).getTime();
    buckets.set(key, mergeRollups(buckets.get(key) ?? EMPTY_ROLLUP, rollup));
  }
  const time_series: TimeSeriesPoint[] = [...buckets.entries()]
    .sort(([a], [b]) => a - b)
    .map(([start, rollup]) => ({
      timestamp: new Date(start).toISOString(),
      queries: rollup.queries,
      latency_p50: histogramQuantile(rollup.latency_histogram, 0.5),
      latency_p95: histogramQuantile(rollup.latency_histogram, 0.95),
    }));
  return { metrics: metricsOf(total), time_series };
}

function nextBucket(at: Date, granularity: Granularity): Date {
  const next = new Date(at);
  if (granularity === 'hour') next.setUTCHours(next.getUTCHours() + 1);
  else if (granularity === 'day') next.setUTCDate(next.getUTCDate() + 1);
  else if (granularity === 'week') next.setUTCDate(next.getUTCDate() + 7);
  else next.setUTCMonth(next.getUTCMonth() + 1);
  return next;
}
