import type { Actor } from '../../domain/actor';
import {
  AdminRoleNeedsSessionError,
  ConflictError,
  InvalidRequestError,
  NotFoundError,
} from '../../domain/errors';
import {
  effectiveAccess,
  GROUP_DEFAULT_ROLE,
  GROUP_LIMITS,
  type Group,
  type GroupChanges,
  type GroupGrant,
} from '../../domain/group';
import { newId } from '../../domain/ids';
import { type Page, type PageRequest, pageOf } from '../../domain/pagination';
import type { Role, User } from '../../domain/user';
import type { AgentRepository } from '../../ports/agent-repository.port';
import type { Clock } from '../../ports/clock.port';
import type { GroupRepository } from '../../ports/group-repository.port';
import type { UserRepository } from '../../ports/user-repository.port';
import { refuseAdministratorFromKey, refuseAdminRoleFromKey } from '../users/admin-role-bound';

export interface GroupDependencies {
  readonly groups: GroupRepository;
  readonly users: Pick<
    UserRepository,
    'get' | 'getWithGroups' | 'addGroup' | 'removeGroup' | 'listByGroup'
  >;
  readonly agents: Pick<AgentRepository, 'list'>;
  readonly clock: Clock;
}

export interface CreateGroupInput {
  readonly name: string;
  readonly description?: string | null | undefined;
  readonly role?: Role | undefined;
  readonly agent_ids?: readonly string[] | null | undefined;
}

/**
 * A group may only name agents of its own organization; ids of other
 * organizations are reported exactly like ids that do not exist (as P7 does
 * for an agent's data sources).
 */
async function assertAgentsExist(
  deps: Pick<GroupDependencies, 'agents'>,
  orgId: string,
  ids: readonly string[],
): Promise<void> {
  const unique = [...new Set(ids)];
  if (unique.length !== ids.length) {
    throw new InvalidRequestError('agent_ids contains duplicates', {
      fields: [{ path: 'agent_ids', message: 'must not contain duplicates' }],
    });
  }
  if (unique.length === 0) return;
  const existing = new Set(
    (await deps.agents.list(orgId, { limit: Number.MAX_SAFE_INTEGER, offset: 0 })).items.map(
      (agent) => agent.id,
    ),
  );
  const unknown = unique.filter((id) => !existing.has(id));
  if (unknown.length > 0) {
    throw new InvalidRequestError(`Unknown agent ids: ${unknown.join(', ')}`, {
      fields: [{ path: 'agent_ids', message: 'unknown agent ids' }],
      unknown_agent_ids: unknown,
    });
  }
}

/**
 * Issue 9 item 5 `POST /api/v1/groups`: a named set of users with a role
 * (P82 defaults). An API key cannot make an `admin` group.
 */
export async function createGroup(
  deps: GroupDependencies,
  orgId: string,
  input: CreateGroupInput,
  actor: Actor,
): Promise<Group> {
  refuseAdminRoleFromKey(actor, input.role, 'give');
  if (input.agent_ids) await assertAgentsExist(deps, orgId, input.agent_ids);
  const now = deps.clock.now();
  const group: Group = {
    id: newId('group', now.getTime()),
    name: input.name,
    description: input.description ?? null,
    role: input.role ?? GROUP_DEFAULT_ROLE,
    agent_ids: input.agent_ids ? [...input.agent_ids] : null,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  };
  await deps.groups.create(orgId, group);
  return group;
}

export async function getGroup(
  deps: Pick<GroupDependencies, 'groups'>,
  orgId: string,
  id: string,
): Promise<Group> {
  const group = await deps.groups.get(orgId, id);
  if (!group) throw new NotFoundError(`No group ${id}`);
  return group;
}

export function listGroups(
  deps: Pick<GroupDependencies, 'groups'>,
  orgId: string,
  page: PageRequest,
): Promise<Page<Group>> {
  return deps.groups.list(orgId, page);
}

/**
 * An administrator cannot take the admin role from themselves through
 * a group (leaving it, lowering its role, deleting it), as P61 keeps them
 * from demoting themselves: an organization keeps the administrator who acts.
 * `change` turns the actor's current grants into those after the change.
 */
async function assertActorStaysAdmin(
  deps: Pick<GroupDependencies, 'groups' | 'users'>,
  orgId: string,
  actor: Actor,
  change: (grants: readonly GroupGrant[]) => readonly GroupGrant[],
): Promise<void> {
  if (actor.kind !== 'user') return;
  const current = await deps.users.getWithGroups(orgId, actor.user_id);
  if (!current || current.user.role === 'admin') return;
  const grants = await deps.groups.grants(orgId, current.groupIds);
  if (effectiveAccess(current.user.role, change(grants)).role !== 'admin') {
    throw new ConflictError(
      'You cannot take the admin role from yourself through a group; ask another admin',
    );
  }
}

/** Concurrent updates of one group retry this often before giving up with 409. */
const UPDATE_ATTEMPTS = 3;

/**
 * An API key leaves a group whose role is `admin` alone (its name,
 * role, agents, members, the group itself): what it grants stays with a
 * signed-in administrator.
 */
function refuseAdminGroupFromKey(actor: Actor, group: Group): void {
  if (actor.kind === 'api_key' && group.role === 'admin') {
    throw new AdminRoleNeedsSessionError(
      `Group ${group.id} gives the admin role: only a signed-in administrator can change it or its members`,
    );
  }
}

/**
 * `PUT /api/v1/groups/:id`: name, description, role, agents. Members feel a
 * changed role or agent list at their next request.
 */
export async function updateGroup(
  deps: GroupDependencies,
  orgId: string,
  id: string,
  changes: GroupChanges,
  actor: Actor,
): Promise<Group> {
  refuseAdminRoleFromKey(actor, changes.role, 'give');
  if (changes.agent_ids) await assertAgentsExist(deps, orgId, changes.agent_ids);
  for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt += 1) {
    const current = await deps.groups.getVersioned(orgId, id);
    if (!current) throw new NotFoundError(`No group ${id}`);
    refuseAdminGroupFromKey(actor, current.group);
    const wanted = definedOnly(changes);
    if (wanted.role !== undefined && wanted.role !== current.group.role) {
      const role = wanted.role;
      await assertActorStaysAdmin(deps, orgId, actor, (grants) =>
        grants.map((grant) => (grant.id === id ? { ...grant, role } : grant)),
      );
    }
    const now = deps.clock.now();
    const updated = await deps.groups.update(
      orgId,
      id,
      { ...wanted, updated_at: now.toISOString() },
      current.version,
    );
    if (updated) return updated;
  }
  throw new ConflictError(`Group ${id} is being changed concurrently; retry`);
}

/**
 * `DELETE /api/v1/groups/:id`. The group item goes first: from then on it
 * grants nothing, since a session check skips groups that are gone.
 * The id is then taken off its members, which only tidies their items.
 */
export async function deleteGroup(
  deps: GroupDependencies,
  orgId: string,
  id: string,
  actor: Actor,
): Promise<void> {
  const group = await deps.groups.get(orgId, id);
  if (!group) throw new NotFoundError(`No group ${id}`);
  refuseAdminGroupFromKey(actor, group);
  await assertActorStaysAdmin(deps, orgId, actor, (grants) =>
    grants.filter((grant) => grant.id !== id),
  );
  if (!(await deps.groups.delete(orgId, id))) throw new NotFoundError(`No group ${id}`);
  const members = await deps.users.listByGroup(orgId, id);
  await Promise.all(members.map((member) => deps.users.removeGroup(orgId, member.id, id)));
}

/** `GET /api/v1/groups/:id/members`: the group's users, newest first (D2 page). */
export async function listMembers(
  deps: Pick<GroupDependencies, 'groups' | 'users'>,
  orgId: string,
  groupId: string,
  page: PageRequest,
): Promise<Page<User>> {
  await getGroup(deps, orgId, groupId);
  return pageOf(await deps.users.listByGroup(orgId, groupId), page);
}

/**
 * `PUT /api/v1/groups/:id/members/:user_id`: the user joins the group
 * (already a member: nothing changes). Any user of the organization can be
 * a member, invited and deactivated ones too. A group deleted while
 * the user joined is taken off them again, and the join is a 404. An API
 * key adds no one to an `admin` group, and no effective administrator to
 * any group.
 */
export async function addMember(
  deps: Pick<GroupDependencies, 'groups' | 'users'>,
  orgId: string,
  groupId: string,
  userId: string,
  actor: Actor,
): Promise<void> {
  refuseAdminGroupFromKey(actor, await getGroup(deps, orgId, groupId));
  await refuseAdministratorFromKey(deps, orgId, actor, userId);
  const refused = await deps.users.addGroup(orgId, userId, groupId, GROUP_LIMITS.groupsPerUserMax);
  if (refused === 'no_user') throw new NotFoundError(`No user ${userId}`);
  if (refused === 'too_many_groups') {
    throw new ConflictError(
      `User ${userId} already belongs to ${GROUP_LIMITS.groupsPerUserMax} groups`,
      { max_groups: GROUP_LIMITS.groupsPerUserMax },
    );
  }
  if (!(await deps.groups.get(orgId, groupId))) {
    await deps.users.removeGroup(orgId, userId, groupId);
    throw new NotFoundError(`No group ${groupId}`);
  }
}

/**
 * `DELETE /api/v1/groups/:id/members/:user_id`: 404 when the user is not a
 * member. An API key removes no one from an `admin` group, and no effective
 * administrator from any group.
 */
export async function removeMember(
  deps: Pick<GroupDependencies, 'groups' | 'users'>,
  orgId: string,
  groupId: string,
  userId: string,
  actor: Actor,
): Promise<void> {
  refuseAdminGroupFromKey(actor, await getGroup(deps, orgId, groupId));
  await refuseAdministratorFromKey(deps, orgId, actor, userId);
  if (actor.kind === 'user' && userId === actor.user_id) {
    await assertActorStaysAdmin(deps, orgId, actor, (grants) =>
      grants.filter((grant) => grant.id !== groupId),
    );
  }
  if (!(await deps.users.removeGroup(orgId, userId, groupId))) {
    throw new NotFoundError(`User ${userId} is not a member of group ${groupId}`);
  }
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(value).filter(([, field]) => field !== undefined),
  ) as Partial<T>;
}
