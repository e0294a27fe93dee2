import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { outboxBatchOf } from '../adapters/dynamodb/outbox';
import type { OutboxBatch } from '../ports/outbox.port';

/**
 * The outbox batch a DynamoDB stream record carries, if any: the item's new
 * image with its pending `outbox` (the cloud's prompt path to publishing).
 */
export function outboxBatchOfStreamRecord(record: DynamoDBRecord): OutboxBatch | null {
  const image = record.dynamodb?.NewImage;
  if (!image) return null;
  // The stream's AttributeValue type and the SDK's differ by declaration only.
  return outboxBatchOf(unmarshall(image as Parameters<typeof unmarshall>[0]));
}
