import type { Group } from '../../layers/core/domain/group';
import type { Principal } from '../../layers/core/domain/principal';
import { operationsWith } from '../../layers/core/http/operation';
import { pageRequest } from '../../layers/core/http/pagination.schema';
import { emptyResponse, jsonResponse } from '../../layers/core/http/responses';
import { userView } from '../../layers/core/http/user.schema';
import {
  addMember,
  createGroup,
  deleteGroup,
  type GroupActor,
  getGroup,
  listGroups,
  listMembers,
  removeMember,
  updateGroup,
} from '../../layers/core/use-cases/groups/group-use-cases';
import {
  createGroupBody,
  groupList,
  groupResource,
  listGroupsQuery,
  listMembersQuery,
  memberList,
  updateGroupBody,
} from './group.schema';
import type { UsersDependencies } from './wiring';

const operation = operationsWith<UsersDependencies>();

function groupView(orgId: string, group: Group) {
  return { ...group, org_id: orgId };
}

/** Changes come from a signed-in administrator (their routes are session-only, P65/P82). */
function actorOf(principal: Principal): GroupActor {
  if (principal.kind !== 'session') throw new Error('a session route reached with an API key');
  return { userId: principal.userId };
}

/**
 * Groups (issue 9 item 5): `/api/v1/groups` and the legacy `/api/groups`
 * (D8), people management beside the users (P82).
 */
export const groupOperations = {
  listGroups: operation({
    summary: "List the organization's groups",
    query: listGroupsQuery,
    responses: { 200: { description: 'A page of groups, newest first', schema: groupList } },
    async handle({ query, principal, deps }) {
      const page = pageRequest(query);
      const result = await listGroups(deps, principal.orgId, page);
      return jsonResponse(200, {
        groups: result.items.map((group) => groupView(principal.orgId, group)),
        total: result.total,
        ...page,
      });
    },
  }),
  createGroup: operation({
    summary: 'Create a group: a role for its members and, optionally, the agents they may use',
    body: createGroupBody,
    responses: { 201: { description: 'The new group', schema: groupResource } },
    async handle({ body, principal, deps }) {
      return jsonResponse(
        201,
        groupView(principal.orgId, await createGroup(deps, principal.orgId, body)),
      );
    },
  }),
  getGroup: operation({
    summary: 'Get a group',
    pathIds: { id: 'group' },
    responses: { 200: { description: 'The group', schema: groupResource } },
    async handle({ params, principal, deps }) {
      const group = await getGroup(deps, principal.orgId, params.id ?? '');
      return jsonResponse(200, groupView(principal.orgId, group));
    },
  }),
  updateGroup: operation({
    summary:
      "Change a group's name, description, role or agents (members feel it at their next request)",
    pathIds: { id: 'group' },
    body: updateGroupBody,
    responses: { 200: { description: 'The updated group', schema: groupResource } },
    async handle({ params, body, principal, deps }) {
      const group = await updateGroup(
        deps,
        principal.orgId,
        params.id ?? '',
        body,
        actorOf(principal),
      );
      return jsonResponse(200, groupView(principal.orgId, group));
    },
  }),
  deleteGroup: operation({
    summary: 'Delete a group (its members leave it)',
    pathIds: { id: 'group' },
    responses: { 204: { description: 'Deleted' } },
    async handle({ params, principal, deps }) {
      await deleteGroup(deps, principal.orgId, params.id ?? '', actorOf(principal));
      return emptyResponse(204);
    },
  }),
  listGroupMembers: operation({
    summary: "List a group's members, newest first",
    pathIds: { id: 'group' },
    query: listMembersQuery,
    responses: { 200: { description: 'A page of the members', schema: memberList } },
    async handle({ params, query, principal, deps }) {
      const page = pageRequest(query);
      const result = await listMembers(deps, principal.orgId, params.id ?? '', page);
      return jsonResponse(200, {
        members: result.items.map((user) => userView(principal.orgId, user)),
        total: result.total,
        ...page,
      });
    },
  }),
  addGroupMember: operation({
    summary: 'Add a user to a group (already a member: nothing changes)',
    pathIds: { id: 'group', user_id: 'user' },
    responses: { 204: { description: 'The user is a member' } },
    async handle({ params, principal, deps }) {
      await addMember(deps, principal.orgId, params.id ?? '', params.user_id ?? '');
      return emptyResponse(204);
    },
  }),
  removeGroupMember: operation({
    summary: 'Remove a user from a group',
    pathIds: { id: 'group', user_id: 'user' },
    responses: { 204: { description: 'The user is no longer a member' } },
    async handle({ params, principal, deps }) {
      await removeMember(
        deps,
        principal.orgId,
        params.id ?? '',
        params.user_id ?? '',
        actorOf(principal),
      );
      return emptyResponse(204);
    },
  }),
};
