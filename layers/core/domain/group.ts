import { type AgentAccess, ALL_AGENTS } from './agent-access';
import { ROLES, type Role } from './user';

/** Bounds on a group, enforced at the edge and, for memberships, by the store. */
export const GROUP_LIMITS = {
  nameMax: 200,
  descriptionMax: 1000,
  /** Like an agent's data sources. */
  agentIdsMax: 100,
  /** One BatchGetItem reads every group of a user when a session is checked. */
  groupsPerUserMax: 100,
} as const;

/** The role a new group gives when none is named: no more than every user has. */
export const GROUP_DEFAULT_ROLE: Role = 'readonly';

/**
 * A named set of users with a role and, optionally, the agents its members
 * may use (issue 9 item 5). `agent_ids: null` restricts nothing. Members are
 * kept on the users, not here.
 */
export interface Group {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  readonly role: Role;
  readonly agent_ids: readonly string[] | null;
  readonly created_at: string;
  readonly updated_at: string;
}

export type GroupChanges = Partial<Pick<Group, 'name' | 'description' | 'role' | 'agent_ids'>>;

/** What a group grants its members, the part a session check reads. */
export type GroupGrant = Pick<Group, 'id' | 'role' | 'agent_ids'>;

/** What a signed-in user may do: the highest role, and the agents they may use. */
export interface EffectiveAccess {
  readonly role: Role;
  readonly agents: AgentAccess;
}

function highest(roles: readonly Role[]): Role {
  return roles.reduce((best, role) => (ROLES.indexOf(role) > ROLES.indexOf(best) ? role : best));
}

/**
 * Issue 9 item 5 and P80: a user's effective role is the highest of theirs
 * and their groups'. Their agents are restricted only when they belong to at
 * least one group and every one of their groups restricts; they may then use
 * the union of those groups' agents. An effective `admin` is never
 * restricted: they manage the groups and could lift any restriction.
 */
export function effectiveAccess(ownRole: Role, grants: readonly GroupGrant[]): EffectiveAccess {
  const role = highest([ownRole, ...grants.map((grant) => grant.role)]);
  if (role === 'admin' || grants.length === 0) return { role, agents: ALL_AGENTS };
  const agentIds = new Set<string>();
  for (const grant of grants) {
    if (grant.agent_ids === null) return { role, agents: ALL_AGENTS };
    for (const id of grant.agent_ids) agentIds.add(id);
  }
  return { role, agents: { kind: 'only', agentIds } };
}
