import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DataSource } from '../../domain/data-source';
import type { DomainEvent } from '../../domain/events';
import type { ConnectionStore, PendingConnection } from '../../ports/connector.port';
import { OrgPartitionItems } from './org-partition-items';
import { keys } from './table-design';

/** Connector types only: a website or file source never carries a grant. */
const CONNECTOR = 'attribute_exists(connection_status)';

/**
 * A connector source's sign-in state lives on its own data source item
 * (`oauth_flow`, `oauth_tokens` sealed, `sync_cursor`: storage attributes
 * the API never shows), so it is scoped to the organization by the key, goes
 * when the source is deleted, and every transition is one conditional write.
 */
export class DynamoDbConnectionStore implements ConnectionStore {
  private readonly items: OrgPartitionItems<DataSource>;

  constructor(client: DynamoDBDocumentClient, tableName: string) {
    this.items = new OrgPartitionItems<DataSource>(
      client,
      tableName,
      'data_source',
      keys.dataSourcePrefix,
    );
  }

  async beginFlow(orgId: string, id: string, flow: PendingConnection): Promise<boolean> {
    const done = await this.items.updateIf(orgId, id, {
      expression: 'SET oauth_flow = :flow',
      condition: CONNECTOR,
      values: { ':flow': flow },
    });
    return done !== null;
  }

  async takeFlow(
    orgId: string,
    id: string,
    flowId: string,
    nowSeconds: number,
  ): Promise<PendingConnection | null> {
    const item = await this.items.getItem(orgId, id);
    const flow = item?.oauth_flow as PendingConnection | undefined;
    if (!flow || flow.flow_id !== flowId) return null;
    // One conditional remove: of two callbacks racing with the same state, one gets the flow.
    const taken = await this.items.updateIf(orgId, id, {
      expression: 'REMOVE oauth_flow',
      condition: 'oauth_flow.flow_id = :flow',
      values: { ':flow': flowId },
    });
    if (!taken) return null;
    return flow.expires_at > nowSeconds ? flow : null;
  }

  connect(
    orgId: string,
    id: string,
    sealedTokens: string,
    events: readonly DomainEvent[],
  ): Promise<DataSource | null> {
    return this.items.updateIf(orgId, id, {
      // A new grant may reach other content: the next sync reads everything again.
      expression: 'SET oauth_tokens = :tokens, connection_status = :connected REMOVE sync_cursor',
      condition: CONNECTOR,
      values: { ':tokens': sealedTokens, ':connected': 'Connected' },
      events,
    });
  }

  async sealedTokens(orgId: string, id: string): Promise<string | null> {
    const item = await this.items.getItem(orgId, id);
    return typeof item?.oauth_tokens === 'string' ? item.oauth_tokens : null;
  }

  async replaceTokens(orgId: string, id: string, sealedTokens: string): Promise<boolean> {
    const done = await this.items.updateIf(orgId, id, {
      expression: 'SET oauth_tokens = :tokens',
      condition: 'connection_status = :connected',
      values: { ':tokens': sealedTokens, ':connected': 'Connected' },
    });
    return done !== null;
  }

  async markFailed(
    orgId: string,
    id: string,
    _reason: string,
    events: readonly DomainEvent[],
  ): Promise<boolean> {
    const done = await this.items.updateIf(orgId, id, {
      expression: 'SET connection_status = :failed',
      condition: 'connection_status = :connected',
      values: { ':failed': 'Connection failed', ':connected': 'Connected' },
      events,
    });
    return done !== null;
  }

  async disconnect(
    orgId: string,
    id: string,
  ): Promise<{ readonly source: DataSource; readonly sealedTokens: string | null } | null> {
    const item = await this.items.getItem(orgId, id);
    if (!item || item.connection_status === undefined) return null;
    const sealed = typeof item.oauth_tokens === 'string' ? item.oauth_tokens : null;
    const source = await this.items.updateIf(orgId, id, {
      expression:
        'SET connection_status = :disconnected REMOVE oauth_tokens, oauth_flow, sync_cursor',
      condition: CONNECTOR,
      values: { ':disconnected': 'Disconnected' },
    });
    return source ? { source, sealedTokens: sealed } : null;
  }
}
