import type { Actor } from '../../domain/actor';
import { AdminRoleNeedsSessionError } from '../../domain/errors';
import { effectiveAccess } from '../../domain/group';
import type { Role } from '../../domain/user';
import type { GroupGrants } from '../../ports/group-repository.port';
import type { UserRepository } from '../../ports/user-repository.port';

/** What telling a user's effective role takes: their groups, and what those grant. */
export interface EffectiveRoleReaders {
  readonly users: Pick<UserRepository, 'getWithGroups'>;
  readonly groups: Pick<GroupGrants, 'grants'>;
}

/**
 * An API key may manage people, but never give or take the `admin`
 * role. `role` is the role a change would give (a user's, or a group's);
 * a key naming `admin` is refused, whoever it is for.
 */
export function refuseAdminRoleFromKey(actor: Actor | null, role: Role | undefined, what: string) {
  if (actor?.kind === 'api_key' && role === 'admin') {
    throw new AdminRoleNeedsSessionError(
      `An API key cannot ${what} the admin role; a signed-in administrator can`,
    );
  }
}

/**
 * Nor change a user who is an effective administrator (their own role
 * or a group's): deactivating, renaming, re-inviting them, moving them
 * between groups. Read when the request arrives; an unknown user passes
 * here and is the caller's 404 afterwards.
 */
export async function refuseAdministratorFromKey(
  deps: EffectiveRoleReaders,
  orgId: string,
  actor: Actor | null,
  userId: string,
): Promise<void> {
  if (actor?.kind !== 'api_key') return;
  const found = await deps.users.getWithGroups(orgId, userId);
  if (!found) return;
  const grants = found.groupIds.length > 0 ? await deps.groups.grants(orgId, found.groupIds) : [];
  if (effectiveAccess(found.user.role, grants).role === 'admin') {
    throw new AdminRoleNeedsSessionError(
      `User ${userId} is an administrator: only a signed-in administrator can change them`,
    );
  }
}
