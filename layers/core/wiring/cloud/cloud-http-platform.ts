import { DynamoDbApiKeyRepository } from '../../adapters/dynamodb/api-key-repository';
import { DynamoDbConcurrencyLeases } from '../../adapters/dynamodb/concurrency-leases';
import { DynamoDbDailyUsage } from '../../adapters/dynamodb/daily-usage';
import { DynamoDbOrganizationRepository } from '../../adapters/dynamodb/organization-repository';
import { DynamoDbPlanQuota, DynamoDbRateLimiter } from '../../adapters/dynamodb/rate-limiter';
import { parseCloudConfig } from '../../config';
import type { HttpPlatformDependencies } from '../../http/http-function';
import { systemClock } from '../../ports/clock.port';
import { cloudOriginSecret } from './cloud-origin-secret';
import { cloudSessions } from './cloud-sessions';
import { cloudTable } from './cloud-table';

/**
 * What every HTTP family's middlewares use: API keys, sessions, plans
 * and every limit, all in the table, the console's origin and
 * its distribution's secret.
 */
export function cloudHttpPlatform(): HttpPlatformDependencies {
  const { client, tableName, environment } = cloudTable();
  return {
    environment,
    clock: systemClock,
    apiKeys: new DynamoDbApiKeyRepository(client, tableName),
    organizations: new DynamoDbOrganizationRepository(client, tableName),
    rateLimiter: new DynamoDbRateLimiter(client, tableName),
    planQuota: new DynamoDbPlanQuota(client, tableName),
    dailyUsage: new DynamoDbDailyUsage(client, tableName),
    concurrencyLeases: new DynamoDbConcurrencyLeases(client, tableName),
    ...cloudSessions(),
    // The console's origin behind CloudFront, for the CSRF origin check.
    consoleOrigin: parseCloudConfig('console').SVC_CONSOLE_ORIGIN,
    // A request carrying the distribution's secret is judged by the viewer's address.
    originSecret: cloudOriginSecret(),
  };
}
