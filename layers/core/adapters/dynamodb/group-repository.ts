import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Group, GroupChanges } from '../../domain/group';
import { type Page, type PageRequest, pageOf } from '../../domain/pagination';
import type { GroupRepository } from '../../ports/group-repository.port';
import { DynamoDbGroupGrants } from './group-grants';
import { OrgPartitionItems } from './org-partition-items';
import { keys } from './table-design';

/**
 * Groups in their organization's partition (`GROUP#<grp>`), one item each;
 * every write touches that item only (P16). Memberships are on the users,
 * so a group item stays small however many members it has.
 */
export class DynamoDbGroupRepository extends DynamoDbGroupGrants implements GroupRepository {
  private readonly items: OrgPartitionItems<Group>;

  constructor(client: DynamoDBDocumentClient, tableName: string) {
    super(client, tableName);
    this.items = new OrgPartitionItems<Group>(client, tableName, 'group', keys.groupPrefix);
  }

  create(orgId: string, group: Group): Promise<void> {
    return this.items.create(orgId, group);
  }

  get(orgId: string, id: string): Promise<Group | null> {
    return this.items.get(orgId, id);
  }

  async getVersioned(orgId: string, id: string): Promise<{ group: Group; version: number } | null> {
    const found = await this.items.getVersioned(orgId, id);
    return found ? { group: found.entity, version: found.version } : null;
  }

  async list(orgId: string, page: PageRequest): Promise<Page<Group>> {
    return pageOf(await this.items.queryAll(orgId), page);
  }

  update(
    orgId: string,
    id: string,
    changes: GroupChanges & { readonly updated_at: string },
    expectedVersion: number,
  ): Promise<Group | null> {
    return this.items.update(orgId, id, changes, { expectedVersion });
  }

  delete(orgId: string, id: string): Promise<boolean> {
    return this.items.delete(orgId, id);
  }
}
