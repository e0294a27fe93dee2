import type { Group, GroupChanges, GroupGrant } from '../domain/group';
import type { Page, PageRequest } from '../domain/pagination';

/**
 * What a session check reads of a user's groups: the grants of the
 * groups that still exist, in one read. Every HTTP family has it.
 */
export interface GroupGrants {
  /** Groups of `ids` that are gone are left out (a deleted group grants nothing). */
  grants(orgId: string, ids: readonly string[]): Promise<GroupGrant[]>;
}

/**
 * Groups of one organization (issue 9 item 5); every call is scoped by
 * `orgId`. Memberships are kept on the users (UserRepository).
 */
export interface GroupRepository extends GroupGrants {
  create(orgId: string, group: Group): Promise<void>;
  get(orgId: string, id: string): Promise<Group | null>;
  getVersioned(orgId: string, id: string): Promise<{ group: Group; version: number } | null>;
  list(orgId: string, page: PageRequest): Promise<Page<Group>>;
  /** Applies the changes if the group is still at `expectedVersion`; `null` when gone or changed since. */
  update(
    orgId: string,
    id: string,
    changes: GroupChanges & { readonly updated_at: string },
    expectedVersion: number,
  ): Promise<Group | null>;
  /** `false` when there was no such group. */
  delete(orgId: string, id: string): Promise<boolean>;
}
