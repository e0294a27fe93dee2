import type { Environment } from '../domain/environments';
import type { AgentRepository } from './agent-repository.port';
import type { ApiKeyRepository } from './api-key-repository.port';
import type { Clock } from './clock.port';
import type { DataSourceRepository } from './data-source-repository.port';
import type { OrganizationRepository } from './organization-repository.port';
import type { PlanQuota, RateLimiter } from './rate-limiter.port';
import type { SyncJobQueue } from './sync-job-queue.port';

/** Everything the use cases may need, as ports. The cloud and local wiring fill it in. */
export interface Dependencies {
  /** D10: the environment this deployment serves. */
  readonly environment: Environment;
  readonly clock: Clock;
  readonly organizations: OrganizationRepository;
  readonly apiKeys: ApiKeyRepository;
  readonly agents: AgentRepository;
  readonly dataSources: DataSourceRepository;
  readonly rateLimiter: RateLimiter;
  readonly planQuota: PlanQuota;
  readonly syncQueue: SyncJobQueue;
}
