import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../adapters/dynamodb/document-client';
import { parseCloudConfig } from '../../config';
import type { Environment } from '../../domain/environments';
import { traceAwsClient } from '../../observability/tracing';

/** The stack's table, as every function except the fallback reaches it. */
export interface CloudTable {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
  /** The environment this deployment serves. */
  readonly environment: Environment;
}

let table: CloudTable | undefined;

/** One traced document client per function instance; no request is made here. */
export function cloudTable(): CloudTable {
  if (table) return table;
  const config = parseCloudConfig('table');
  table = {
    client: createDocumentClient({ region: config.AWS_REGION, instrument: traceAwsClient }),
    tableName: config.TABLE_NAME,
    environment: config.SVC_ENVIRONMENT,
  };
  return table;
}
