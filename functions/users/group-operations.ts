import { actorOf } from '../../layers/core/domain/actor';
import type { Group } from '../../layers/core/domain/group';
import { operationsWith } from '../../layers/core/http/operation';
import { pageRequest } from '../../layers/core/http/pagination.schema';
import { emptyResponse, jsonResponse } from '../../layers/core/http/responses';
import { userView } from '../../layers/core/http/user.schema';
import {
  addMember,
  createGroup,
  deleteGroup,
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
import { logPeopleChange } from './people-log';
import { adminRoleRefusal } from './user.schema';
import type { UsersDependencies } from './wiring';

const operation = operationsWith<UsersDependencies>();

function groupView(orgId: string, group: Group) {
  return { ...group, org_id: orgId };
}

/**
 * Groups (issue 9 item 5): `/api/v1/groups` and the legacy `/api/groups`,
 * people management beside the users.
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
    responses: {
      201: { description: 'The new group', schema: groupResource },
      403: adminRoleRefusal,
    },
    async handle({ body, principal, deps, requestId }) {
      const actor = actorOf(principal);
      const group = await createGroup(deps, principal.orgId, body, actor);
      logPeopleChange('createGroup', { principal, requestId }, { group_id: group.id });
      return jsonResponse(201, groupView(principal.orgId, group));
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
    responses: {
      200: { description: 'The updated group', schema: groupResource },
      403: adminRoleRefusal,
    },
    async handle({ params, body, principal, deps, requestId }) {
      const actor = actorOf(principal);
      const group = await updateGroup(deps, principal.orgId, params.id ?? '', body, actor);
      logPeopleChange('updateGroup', { principal, requestId }, { group_id: group.id });
      return jsonResponse(200, groupView(principal.orgId, group));
    },
  }),
  deleteGroup: operation({
    summary: 'Delete a group (its members leave it)',
    pathIds: { id: 'group' },
    responses: { 204: { description: 'Deleted' }, 403: adminRoleRefusal },
    async handle({ params, principal, deps, requestId }) {
      const actor = actorOf(principal);
      await deleteGroup(deps, principal.orgId, params.id ?? '', actor);
      logPeopleChange('deleteGroup', { principal, requestId }, { group_id: params.id });
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
    responses: { 204: { description: 'The user is a member' }, 403: adminRoleRefusal },
    async handle({ params, principal, deps, requestId }) {
      const actor = actorOf(principal);
      await addMember(deps, principal.orgId, params.id ?? '', params.user_id ?? '', actor);
      logPeopleChange(
        'addGroupMember',
        { principal, requestId },
        { group_id: params.id, user_id: params.user_id },
      );
      return emptyResponse(204);
    },
  }),
  removeGroupMember: operation({
    summary: 'Remove a user from a group',
    pathIds: { id: 'group', user_id: 'user' },
    responses: { 204: { description: 'The user is no longer a member' }, 403: adminRoleRefusal },
    async handle({ params, principal, deps, requestId }) {
      const actor = actorOf(principal);
      await removeMember(deps, principal.orgId, params.id ?? '', params.user_id ?? '', actor);
      logPeopleChange(
        'removeGroupMember',
        { principal, requestId },
        { group_id: params.id, user_id: params.user_id },
      );
      return emptyResponse(204);
    },
  }),
};
