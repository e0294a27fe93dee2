import { Logger } from '@aws-lambda-powertools/logger';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { runScheduledSyncs } from '../../layers/core/use-cases/scheduling/run-scheduled-syncs';
import { recheckSsoDomains } from '../../layers/core/use-cases/sso/recheck-sso-domains';
import { dependencies } from './wiring';

const logger = new Logger({ serviceName: 'svc-scheduler' });

/** Time kept back before the Lambda deadline: sources not started by then wait for the next tick. */
const FINISH_MARGIN_MS = 10_000;

/** The counts one tick logs (and returns, for the console's test invocations). */
export interface SchedulerTick {
  readonly due: number;
  readonly queued: number;
  readonly already_running: number;
  readonly skipped: number;
  readonly deferred: number;
  readonly failed: number;
  /** The verified SSO domains looked up again by this tick. */
  readonly domains: {
    readonly due: number;
    readonly confirmed: number;
    readonly unverified: number;
    readonly failed: number;
    readonly skipped: number;
    readonly deferred: number;
  };
}

/**
 * The EventBridge schedule's target. Each tick queues a sync for every
 * `hourly`/`daily`/`weekly` data source that is due (runScheduledSyncs), then
 * looks up again the verified SSO domains whose daily re-check is due
 * (recheckSsoDomains). A source whose request fails is logged and tried
 * again by the next tick; only a failure to read the schedule fails the
 * invocation (and its alarm).
 */
export async function handler(_event: ScheduledEvent, context?: Context): Promise<SchedulerTick> {
  const remaining = context?.getRemainingTimeInMillis();
  const options =
    remaining === undefined
      ? {}
      : { signal: AbortSignal.timeout(Math.max(1_000, remaining - FINISH_MARGIN_MS)) };
  const deps = dependencies();
  const run = await runScheduledSyncs(deps, options);
  for (const failure of run.failures) {
    logger.error('A scheduled sync request failed; the next tick tries again', {
      org_id: failure.orgId,
      data_source_id: failure.dataSourceId,
      error: failure.error as Error,
    });
  }
  const tick: SchedulerTick = {
    due: run.due,
    queued: run.queued,
    already_running: run.alreadyRunning,
    skipped: run.skipped,
    deferred: run.deferred,
    failed: run.failures.length,
    domains: await recheckSsoDomains(deps, options),
  };
  logger.info('Scheduled syncs', { ...tick });
  if (tick.domains.unverified > 0) {
    logger.warn('SSO domains unverified: their TXT record is gone', { ...tick.domains });
  }
  return tick;
}
