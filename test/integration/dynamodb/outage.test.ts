import { DynamoDbAgentRepository } from '../../../layers/core/adapters/dynamodb/agent-repository';
import { createDocumentClient } from '../../../layers/core/adapters/dynamodb/document-client';
import { ServiceUnavailableError } from '../../../layers/core/domain/errors';
import { startTestTables } from '../../support/dynalite';

describe('DynamoDB outage handling', () => {
  it('turns an unreachable DynamoDB into ServiceUnavailableError (503), not an internal error', async () => {
    // Prepare: a dynalite that is started, then stopped, so its port refuses connections
    const tables = await startTestTables();
    const endpoint = tables.dynamo.endpoint;
    await tables.end();
    const client = createDocumentClient({ endpoint, maxAttempts: 1 });

    // Act
    const attempt = new DynamoDbAgentRepository(client, 'svc-test').get('org_a', 'agt_a');

    // Assess
    await expect(attempt).rejects.toBeInstanceOf(ServiceUnavailableError);
    await expect(attempt).rejects.toMatchObject({ retryAfterSeconds: 5 });
    client.destroy();
  });

  it('lets a failed condition through unchanged', async () => {
    const tables = await startTestTables();
    try {
      const repository = new DynamoDbAgentRepository(tables.client, tables.tableName);
      expect(await repository.delete('org_a', 'agt_missing', [])).toBe(false);
    } finally {
      await tables.end();
    }
  });
});
