import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DescribeTableCommand,
  ResourceNotFoundException,
} from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { TABLE_KEYS } from '../../layers/core/adapters/dynamodb/table-design';
import { LOCAL_QUEUE_TABLE } from '../../layers/core/adapters/local/local-queue';

/** The main table as the CDK stack defines it (lib/constructs/data-store.ts), for dynalite. */
export function mainTableDefinition(tableName: string): CreateTableCommandInput {
  const { partitionKey, sortKey, gsi1, gsi2 } = TABLE_KEYS;
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [
      partitionKey,
      sortKey,
      gsi1.partitionKey,
      gsi1.sortKey,
      gsi2.partitionKey,
      gsi2.sortKey,
    ].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
    KeySchema: [
      { AttributeName: partitionKey, KeyType: 'HASH' },
      { AttributeName: sortKey, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: [
      {
        IndexName: gsi1.indexName,
        KeySchema: [
          { AttributeName: gsi1.partitionKey, KeyType: 'HASH' },
          { AttributeName: gsi1.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      },
      {
        // The sync schedule (sparse; see table-design.ts).
        IndexName: gsi2.indexName,
        KeySchema: [
          { AttributeName: gsi2.partitionKey, KeyType: 'HASH' },
          { AttributeName: gsi2.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...gsi2.projectedAttributes] },
      },
    ],
  };
}

/** The table behind the local queues (the cloud uses SQS instead). */
export function queueTableDefinition(tableName: string): CreateTableCommandInput {
  const { partitionKey, sortKey, visibilityIndex, visibilityKey } = LOCAL_QUEUE_TABLE;
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [partitionKey, sortKey, visibilityKey].map((name) => ({
      AttributeName: name,
      AttributeType: 'S',
    })),
    KeySchema: [
      { AttributeName: partitionKey, KeyType: 'HASH' },
      { AttributeName: sortKey, KeyType: 'RANGE' },
    ],
    LocalSecondaryIndexes: [
      {
        IndexName: visibilityIndex,
        KeySchema: [
          { AttributeName: partitionKey, KeyType: 'HASH' },
          { AttributeName: visibilityKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      },
    ],
  };
}

/**
 * Creates each table unless it exists (data under SVC_DATA_DIR outlives
 * restarts). A table of an earlier version whose indexes differ is rebuilt
 * first by `migrateTables` (lib/local/table-migration.ts).
 */
export async function ensureTables(
  client: DynamoDBDocumentClient,
  definitions: readonly CreateTableCommandInput[],
): Promise<void> {
  for (const definition of definitions) {
    try {
      await client.send(new DescribeTableCommand({ TableName: definition.TableName }));
    } catch (error) {
      if (!(error instanceof ResourceNotFoundException)) throw error;
      await client.send(new CreateTableCommand(definition));
    }
  }
}
