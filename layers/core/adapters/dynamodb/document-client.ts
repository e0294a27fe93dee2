import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { outageAsUnavailable } from '../aws/outage-as-unavailable';

export interface DocumentClientOptions {
  /** Set for dynalite (or DynamoDB Local); unset in the cloud. */
  readonly endpoint?: string | undefined;
  readonly region?: string | undefined;
  /** SDK attempts per call (default 3). */
  readonly maxAttempts?: number | undefined;
  /** Applied to the low-level client before it is wrapped (the cloud's X-Ray capture). */
  readonly instrument?: (client: DynamoDBClient) => DynamoDBClient;
}

/**
 * One document client per process. Against a local endpoint it signs with
 * fixed dummy credentials: dynalite checks the signature's shape, not its
 * secret, and no real credentials should ever be needed on one machine.
 */
export function createDocumentClient(options: DocumentClientOptions = {}): DynamoDBDocumentClient {
  const client = new DynamoDBClient({
    ...(options.endpoint
      ? {
          endpoint: options.endpoint,
          region: options.region ?? 'local',
          credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
          maxAttempts: options.maxAttempts ?? 3,
        }
      : { region: options.region }),
  });
  client.middlewareStack.use(outageAsUnavailable);
  return DynamoDBDocumentClient.from(options.instrument ? options.instrument(client) : client, {
    marshallOptions: { removeUndefinedValues: true },
  });
}

/** True for the error DynamoDB raises when a condition expression fails. */
export function isConditionFailure(error: unknown): boolean {
  return error instanceof ConditionalCheckFailedException;
}
