import { createHash } from 'node:crypto';
import { DeleteCommand, type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { SamlAssertionLedger, SsoFlow, SsoFlowStore } from '../../ports/sso.port';
import { isConditionFailure } from './document-client';
import { keys } from './table-design';

/** sign-ins in progress, one item each, taken (deleted) by the one callback that finishes it. */
export class DynamoDbSsoFlowStore implements SsoFlowStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async save(flow: SsoFlow): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...keys.ssoFlow(flow.id), entity: 'sso_flow', ...flow },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
  }

  async take(id: string, nowSeconds: number): Promise<SsoFlow | null> {
    try {
      // One conditional delete: of two callbacks racing with the same state, one gets the flow.
      const { Attributes } = await this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: keys.ssoFlow(id),
          ConditionExpression: 'attribute_exists(PK)',
          ReturnValues: 'ALL_OLD',
        }),
      );
      if (!Attributes) return null;
      const flow = Attributes as unknown as SsoFlow;
      // TTL deletes lazily: an item past its time is void all the same.
      return flow.expires_at > nowSeconds ? flow : null;
    } catch (error) {
      if (isConditionFailure(error)) return null;
      throw error;
    }
  }
}

/** SAML assertions accepted, remembered by a hash of issuer and id until they could no longer be valid. */
export class DynamoDbSamlAssertionLedger implements SamlAssertionLedger {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async remember(issuer: string, assertionId: string, untilSeconds: number): Promise<boolean> {
    const hash = createHash('sha256').update(`${issuer}\n${assertionId}`).digest('hex');
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...keys.samlAssertion(hash), entity: 'saml_assertion', expires_at: untilSeconds },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
}
