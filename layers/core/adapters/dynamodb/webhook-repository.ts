import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type Page, type PageRequest, pageOf } from '../../domain/pagination';
import type { Webhook, WebhookSecrets } from '../../domain/webhook';
import type { WebhookRepository } from '../../ports/webhook-repository.port';
import { OrgPartitionItems } from './org-partition-items';
import { keys } from './table-design';

/** Webhooks in their organization's partition; `secrets` (sealed) is a storage attribute, never part of the entity. */
export class DynamoDbWebhookRepository implements WebhookRepository {
  private readonly items: OrgPartitionItems<Webhook>;

  constructor(client: DynamoDBDocumentClient, tableName: string) {
    // Webhooks written before owners were recorded have none.
    this.items = new OrgPartitionItems<Webhook>(
      client,
      tableName,
      'webhook',
      keys.webhookPrefix,
      (webhook) => ({ ...webhook, owner: webhook.owner ?? null }),
    );
  }

  create(orgId: string, webhook: Webhook, secrets: WebhookSecrets): Promise<void> {
    return this.items.create(orgId, webhook, [], { secrets });
  }

  get(orgId: string, id: string): Promise<Webhook | null> {
    return this.items.get(orgId, id);
  }

  async getWithSecrets(
    orgId: string,
    id: string,
  ): Promise<{ webhook: Webhook; secrets: WebhookSecrets } | null> {
    const item = await this.items.getItem(orgId, id);
    if (!item?.secrets) return null;
    return { webhook: this.items.toEntity(item), secrets: item.secrets as WebhookSecrets };
  }

  async list(orgId: string, page: PageRequest): Promise<Page<Webhook>> {
    return pageOf(await this.items.queryAll(orgId), page);
  }

  listReceiving(orgId: string): Promise<Webhook[]> {
    return this.items.queryAll(orgId, {
      filterExpression: '#status <> :disabled',
      names: { '#status': 'status' },
      values: { ':disabled': 'disabled' },
    });
  }

  update(
    orgId: string,
    id: string,
    changes: Partial<Pick<Webhook, 'url' | 'events' | 'description' | 'owner'>> & {
      updated_at: string;
    },
  ): Promise<Webhook | null> {
    return this.items.update(orgId, id, changes);
  }

  replaceSecrets(
    orgId: string,
    id: string,
    secrets: WebhookSecrets,
    last4: string,
    updatedAt: string,
  ): Promise<Webhook | null> {
    return this.items.update(orgId, id, { secrets, secret_last4: last4, updated_at: updatedAt });
  }

  async setStatus(
    orgId: string,
    id: string,
    status: Webhook['status'],
    from: readonly Webhook['status'][],
  ): Promise<void> {
    const placeholders = from.map((_, index) => `:from${index}`);
    await this.items.updateIf(orgId, id, {
      expression: 'SET #status = :status',
      condition: `#status IN (${placeholders.join(', ')})`,
      values: {
        ':status': status,
        ...Object.fromEntries(from.map((value, index) => [`:from${index}`, value])),
      },
      names: { '#status': 'status' },
    });
  }

  delete(orgId: string, id: string): Promise<boolean> {
    return this.items.delete(orgId, id);
  }
}
