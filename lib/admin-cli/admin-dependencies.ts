import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoDbApiKeyRepository } from '../../layers/core/adapters/dynamodb/api-key-repository';
import { DynamoDbOrganizationDirectory } from '../../layers/core/adapters/dynamodb/organization-directory';
import { DynamoDbOrganizationRepository } from '../../layers/core/adapters/dynamodb/organization-repository';
import { DynamoDbUserRepository } from '../../layers/core/adapters/dynamodb/user-repository';
import { systemClock } from '../../layers/core/ports/clock.port';
import type { AdminDependencies } from './admin-target';

/**
 * The admin commands' dependencies on one table: the same DynamoDB adapters
 * the functions use, and nothing else (the CLI seals no secrets and calls no
 * model, so it loads neither, and starts fast).
 */
export function adminDependencies(
  client: DynamoDBDocumentClient,
  tableName: string,
): AdminDependencies {
  const directory = new DynamoDbOrganizationDirectory(client, tableName);
  return {
    clock: systemClock,
    organizations: new DynamoDbOrganizationRepository(client, tableName),
    apiKeys: new DynamoDbApiKeyRepository(client, tableName),
    users: new DynamoDbUserRepository(client, tableName),
    // The CLI prints the invitation itself and passes no link origin, so nothing is mailed.
    mailer: { send: async () => 'not_sent' },
    listOrganizations: () => directory.listAll(),
  };
}
