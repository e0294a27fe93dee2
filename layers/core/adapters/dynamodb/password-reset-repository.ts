import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
} from '@aws-sdk/lib-dynamodb';
import { PASSWORD_RESET_TTL_MS } from '../../domain/password-reset';
import type { PasswordResetRecord, PasswordResetRepository } from '../../ports/password-reset.port';
import { isConditionFailure } from './document-client';
import { keys } from './table-design';

/** One item per reset issued, by its token's hash, gone (TTL) a day after it stops working. */
export class DynamoDbPasswordResetRepository implements PasswordResetRepository {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async put(record: PasswordResetRecord): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...keys.passwordReset(record.tokenHash),
          entity: 'password_reset',
          org_id: record.orgId,
          user_id: record.userId,
          issued_at_ms: record.issuedAt,
          expires_at_ms: record.expiresAt,
          password_fingerprint: record.passwordFingerprint,
          expires_at: Math.ceil(record.expiresAt / 1000) + 24 * 3600,
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
  }

  async find(tokenHash: string): Promise<PasswordResetRecord | null> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: keys.passwordReset(tokenHash),
        ConsistentRead: true,
      }),
    );
    if (!Item) return null;
    const expiresAt = Number(Item.expires_at_ms);
    return {
      tokenHash,
      orgId: String(Item.org_id),
      userId: String(Item.user_id),
      // A reset stored before the issue time was kept was issued its lifetime before it expires.
      issuedAt: Number(Item.issued_at_ms ?? expiresAt - PASSWORD_RESET_TTL_MS),
      expiresAt,
      passwordFingerprint: String(Item.password_fingerprint),
    };
  }

  async consume(tokenHash: string): Promise<boolean> {
    try {
      await this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: keys.passwordReset(tokenHash),
          ConditionExpression: 'attribute_exists(PK)',
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
}
