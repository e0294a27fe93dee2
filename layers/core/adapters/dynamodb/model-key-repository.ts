import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ModelKey } from '../../domain/model-key';
import { type Page, type PageRequest, pageOf } from '../../domain/pagination';
import type { ModelKeyRepository } from '../../ports/model-key.port';
import { OrgPartitionItems } from './org-partition-items';
import { keys } from './table-design';

/**
 * Model keys in their organization's partition. `sealed_key` is a
 * storage attribute: never part of the entity, so no list or get returns it.
 */
export class DynamoDbModelKeyRepository implements ModelKeyRepository {
  private readonly items: OrgPartitionItems<ModelKey>;

  constructor(client: DynamoDBDocumentClient, tableName: string) {
    this.items = new OrgPartitionItems<ModelKey>(
      client,
      tableName,
      'model_key',
      keys.modelKeyPrefix,
    );
  }

  create(orgId: string, modelKey: ModelKey, sealedKey: string): Promise<void> {
    return this.items.create(orgId, modelKey, [], { sealed_key: sealedKey });
  }

  get(orgId: string, id: string): Promise<ModelKey | null> {
    return this.items.get(orgId, id);
  }

  async getSealed(
    orgId: string,
    id: string,
  ): Promise<{ modelKey: ModelKey; sealedKey: string } | null> {
    const item = await this.items.getItem(orgId, id);
    if (typeof item?.sealed_key !== 'string') return null;
    return { modelKey: this.items.toEntity(item), sealedKey: item.sealed_key };
  }

  async list(orgId: string, page: PageRequest): Promise<Page<ModelKey>> {
    return pageOf(await this.items.queryAll(orgId), page);
  }

  delete(orgId: string, id: string): Promise<boolean> {
    return this.items.delete(orgId, id);
  }
}
