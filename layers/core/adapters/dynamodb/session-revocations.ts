import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { SessionRevocations } from '../../ports/session.port';
import { keys } from './table-design';

/** Revoked sessions, one item each, gone (TTL) once no token of theirs could still be valid. */
export class DynamoDbSessionRevocations implements SessionRevocations {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async revoke(sessionId: string, until: number): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...keys.revokedSession(sessionId), entity: 'revoked_session', expires_at: until },
      }),
    );
  }

  async isRevoked(sessionId: string, now: number): Promise<boolean> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: keys.revokedSession(sessionId),
        ConsistentRead: true,
      }),
    );
    // TTL deletes lazily (up to days late); the item speaks only until its time.
    return Item !== undefined && Number(Item.expires_at) > now;
  }
}
