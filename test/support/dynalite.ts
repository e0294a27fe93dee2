import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../layers/core/adapters/dynamodb/document-client';
import { type LocalDynamoDb, startDynalite } from '../../lib/local/dynalite-server';
import { queueTableName } from '../../lib/local/local-dependencies';
import { ensureTables, mainTableDefinition, queueTableDefinition } from '../../lib/local/tables';

export interface TestTables {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
  readonly queueTableName: string;
  readonly dynamo: LocalDynamoDb;
  end(): Promise<void>;
}

/** A real dynalite, in memory on a free port, with the service's tables. */
export async function startTestTables(tableName = 'svc-test'): Promise<TestTables> {
  const dynamo = await startDynalite({ host: '127.0.0.1', port: 0 });
  const client = createDocumentClient({ endpoint: dynamo.endpoint });
  await ensureTables(client, [
    mainTableDefinition(tableName),
    queueTableDefinition(queueTableName(tableName)),
  ]);
  return {
    client,
    tableName,
    queueTableName: queueTableName(tableName),
    dynamo,
    end: async () => {
      client.destroy();
      await dynamo.end();
    },
  };
}
