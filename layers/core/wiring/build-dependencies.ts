import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoDbAgentRepository } from '../adapters/dynamodb/agent-repository';
import { DynamoDbApiKeyRepository } from '../adapters/dynamodb/api-key-repository';
import { DynamoDbDataSourceRepository } from '../adapters/dynamodb/data-source-repository';
import { DynamoDbOrganizationRepository } from '../adapters/dynamodb/organization-repository';
import { DynamoDbPlanQuota, DynamoDbRateLimiter } from '../adapters/dynamodb/rate-limiter';
import type { Environment } from '../domain/environments';
import { type Clock, systemClock } from '../ports/clock.port';
import type { Dependencies } from '../ports/dependencies.port';
import type { SyncJobQueue } from '../ports/sync-job-queue.port';

/**
 * The part of the wiring both runtimes share: the same DynamoDB adapters,
 * pointed at DynamoDB in the cloud and at dynalite on one machine.
 */
export function buildDependencies(options: {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
  readonly environment: Environment;
  readonly syncQueue: SyncJobQueue;
  readonly clock?: Clock;
}): Dependencies {
  const { client, tableName } = options;
  return {
    environment: options.environment,
    clock: options.clock ?? systemClock,
    organizations: new DynamoDbOrganizationRepository(client, tableName),
    apiKeys: new DynamoDbApiKeyRepository(client, tableName),
    agents: new DynamoDbAgentRepository(client, tableName),
    dataSources: new DynamoDbDataSourceRepository(client, tableName),
    rateLimiter: new DynamoDbRateLimiter(client, tableName),
    planQuota: new DynamoDbPlanQuota(client, tableName),
    syncQueue: options.syncQueue,
  };
}
