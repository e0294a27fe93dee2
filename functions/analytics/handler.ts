import type { AgentAccess } from '../../layers/core/domain/agent-access';
import type { Granularity } from '../../layers/core/domain/analytics';
import { InvalidRequestError } from '../../layers/core/domain/errors';
import { agentAccessOf } from '../../layers/core/domain/principal';
import { dayAfter } from '../../layers/core/http/date.schema';
import { httpFunction } from '../../layers/core/http/http-function';
import { operationsWith } from '../../layers/core/http/operation';
import { jsonResponse } from '../../layers/core/http/responses';
import { ANALYTICS_ROUTES } from '../../layers/core/http/routes/analytics';
import { getAnalytics } from '../../layers/core/use-cases/interactions/interaction-use-cases';
import { analyticsQuery, analyticsResult, legacyDashboardQuery } from './analytics.schema';
import { type AnalyticsDependencies, dependencies } from './wiring';

const operation = operationsWith<AnalyticsDependencies>();

/** The most buckets one request may ask for (a year of days, a month of hours). */
const MAX_BUCKETS = { hour: 24 * 31, day: 366, week: 260, month: 120 } as const;

async function analytics(
  deps: AnalyticsDependencies,
  orgId: string,
  query: {
    start_date: Date;
    end_date: Date;
    agent_id?: string | undefined;
    granularity: Granularity;
  },
  access: AgentAccess,
) {
  if (query.start_date > query.end_date) {
    throw new InvalidRequestError('start_date is after end_date', {
      fields: [{ path: 'start_date', message: 'must not be after end_date' }],
    });
  }
  const to = dayAfter(query.end_date);
  const hours = (to.getTime() - query.start_date.getTime()) / 3_600_000;
  const buckets = { hour: hours, day: hours / 24, week: hours / 168, month: hours / 730 }[
    query.granularity
  ];
  if (buckets > MAX_BUCKETS[query.granularity]) {
    throw new InvalidRequestError(`The range is too long for granularity ${query.granularity}`, {
      fields: [
        {
          path: 'end_date',
          message: `at most ${MAX_BUCKETS[query.granularity]} ${query.granularity}s`,
        },
      ],
    });
  }
  return getAnalytics(
    deps,
    orgId,
    {
      from: query.start_date,
      to,
      agentId: query.agent_id,
      granularity: query.granularity,
    },
    access,
  );
}

/** Analytics (spec), from hourly rollups; legacy /api/analytics/charts/dashboard. */
export const operations = {
  getAnalytics: operation({
    summary: 'Metrics and a time series (p50/p95 latency per bucket) for a date range',
    query: analyticsQuery,
    responses: {
      200: { description: 'Usage metrics and their time_series', schema: analyticsResult },
    },
    async handle({ query, principal, deps }) {
      return jsonResponse(
        200,
        await analytics(deps, principal.orgId, query, agentAccessOf(principal)),
      );
    },
  }),
  getDashboard: operation({
    summary: 'The dashboard charts (legacy): daily analytics',
    query: legacyDashboardQuery,
    responses: {
      200: { description: 'Usage metrics and a daily time_series', schema: analyticsResult },
    },
    async handle({ query, principal, deps }) {
      return jsonResponse(
        200,
        await analytics(
          deps,
          principal.orgId,
          { ...query, granularity: 'day' },
          agentAccessOf(principal),
        ),
      );
    },
  }),
};

export const handler = httpFunction({
  family: 'analytics',
  routes: ANALYTICS_ROUTES,
  operations,
  dependencies,
});
