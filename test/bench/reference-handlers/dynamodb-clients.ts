import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * The cold-start bench's reference for an HTTP family: what every family
 * minimally needs (the DynamoDB client and its document client, built at
 * module scope as a function reuses them across invocations) and nothing
 * else. The target for the CRUD families is an init time within 2× of
 * this one's.
 */
export const documentClient = DynamoDBDocumentClient.from(new DynamoDBClient({}), {
  marshallOptions: { removeUndefinedValues: true },
});

export const handler = async () => ({ statusCode: 200, body: 'ok' });
