import { actorOf } from '../../layers/core/domain/actor';
import { INVITATION_ACCEPT_PATH } from '../../layers/core/http/auth-paths';
import { consoleOrigin, invitationUrl } from '../../layers/core/http/console-url';
import { httpFunction } from '../../layers/core/http/http-function';
import { operationsWith } from '../../layers/core/http/operation';
import { pageRequest } from '../../layers/core/http/pagination.schema';
import { emptyResponse, jsonResponse } from '../../layers/core/http/responses';
import { USERS_ROUTES } from '../../layers/core/http/routes/users';
import { clearedSessionCookie } from '../../layers/core/http/session-cookie';
import { userResource, userView } from '../../layers/core/http/user.schema';
import {
  createUser,
  deactivateUser,
  endUserSessions,
  getUser,
  listUsers,
  type MailedInvitation,
  reinviteUser,
  updateUser,
} from '../../layers/core/use-cases/users/user-use-cases';
import { groupOperations } from './group-operations';
import { logPeopleChange } from './people-log';
import {
  adminRoleRefusal,
  createdUserResource,
  createUserBody,
  invitationResource,
  listUsersQuery,
  updateUserBody,
  userList,
} from './user.schema';
import { dependencies, type UsersDependencies } from './wiring';

const operation = operationsWith<UsersDependencies>();

/** The invitation, with the console's link that accepts it (issue 21) and whether it was mailed. */
function invitationView(invitation: MailedInvitation, origin: string) {
  return {
    token: invitation.token,
    expires_at: invitation.expiresAt,
    accept_path: INVITATION_ACCEPT_PATH,
    invitation_url: invitationUrl(origin, invitation.token),
    mailed: invitation.mailed,
  };
}

/**
 * Users: `/api/v1/users` and the legacy `/api/users`, `/api/user-management/users`;
 * and their groups.
 */
export const operations = {
  listUsers: operation({
    summary: "List the organization's users",
    query: listUsersQuery,
    responses: { 200: { description: 'A page of users, newest first', schema: userList } },
    async handle({ query, principal, deps }) {
      const page = pageRequest(query);
      const result = await listUsers(deps, principal.orgId, page);
      return jsonResponse(200, {
        users: result.items.map((user) => userView(principal.orgId, user)),
        total: result.total,
        ...page,
      });
    },
  }),
  createUser: operation({
    summary: 'Invite a user',
    body: createUserBody,
    responses: {
      201: {
        description:
          'The new user (invited) and their single-use invitation, shown once (and mailed to them when mail is configured)',
        schema: createdUserResource,
      },
      403: adminRoleRefusal,
    },
    async handle({ body, principal, client, deps, requestId }) {
      const actor = actorOf(principal);
      const origin = consoleOrigin({
        publicBaseUrl: deps.consoleOrigin ?? deps.publicBaseUrl(),
        apiBaseUrl: client.apiBaseUrl,
      });
      const created = await createUser(deps, principal.orgId, body, actor, {
        consoleOrigin: origin,
      });
      logPeopleChange('createUser', { principal, requestId }, { user_id: created.user.id });
      return jsonResponse(201, {
        ...userView(principal.orgId, created.user),
        ...(created.invitation ? { invitation: invitationView(created.invitation, origin) } : {}),
      });
    },
  }),
  getUser: operation({
    summary: 'Get a user',
    pathIds: { id: 'user' },
    responses: { 200: { description: 'The user', schema: userResource } },
    async handle({ params, principal, deps }) {
      const user = await getUser(deps, principal.orgId, params.id ?? '');
      return jsonResponse(200, userView(principal.orgId, user));
    },
  }),
  updateUser: operation({
    summary: "Change a user's email, name, role or status",
    pathIds: { id: 'user' },
    body: updateUserBody,
    responses: {
      200: { description: 'The updated user', schema: userResource },
      403: adminRoleRefusal,
    },
    async handle({ params, body, principal, deps, requestId }) {
      const actor = actorOf(principal);
      const user = await updateUser(deps, principal.orgId, params.id ?? '', body, actor);
      logPeopleChange('updateUser', { principal, requestId }, { user_id: user.id });
      return jsonResponse(200, userView(principal.orgId, user));
    },
  }),
  deactivateUser: operation({
    summary: 'Deactivate a user (their sessions end; PUT status active restores them)',
    pathIds: { id: 'user' },
    responses: { 204: { description: 'Deactivated' }, 403: adminRoleRefusal },
    async handle({ params, principal, deps, requestId }) {
      const actor = actorOf(principal);
      const user = await deactivateUser(deps, principal.orgId, params.id ?? '', actor);
      logPeopleChange('deactivateUser', { principal, requestId }, { user_id: user.id });
      return emptyResponse(204);
    },
  }),
  reinviteUser: operation({
    summary: 'Invite a user again (the earlier invitation stops working)',
    pathIds: { id: 'user' },
    responses: {
      201: { description: 'The new invitation, shown once', schema: invitationResource },
      403: adminRoleRefusal,
    },
    async handle({ params, principal, client, deps, requestId }) {
      const actor = actorOf(principal);
      const origin = consoleOrigin({
        publicBaseUrl: deps.consoleOrigin ?? deps.publicBaseUrl(),
        apiBaseUrl: client.apiBaseUrl,
      });
      const invitation = await reinviteUser(deps, principal.orgId, params.id ?? '', actor, {
        consoleOrigin: origin,
      });
      logPeopleChange('reinviteUser', { principal, requestId }, { user_id: invitation.userId });
      return jsonResponse(201, invitationView(invitation, origin));
    },
  }),
  endUserSessions: operation({
    summary: 'Sign a user out everywhere: every session they have ends (they may sign in again)',
    pathIds: { id: 'user' },
    responses: { 204: { description: 'Every session of the user has ended' } },
    async handle({ params, principal, deps }) {
      const id = params.id ?? '';
      await endUserSessions(deps, principal.orgId, id);
      const response = emptyResponse(204);
      // Signing oneself out everywhere ends this session too: its cookie goes.
      if (principal.kind === 'session' && id === principal.userId)
        response.multiValueHeaders = { 'Set-Cookie': [clearedSessionCookie()] };
      return response;
    },
  }),
  ...groupOperations,
};

export const handler = httpFunction({
  family: 'users',
  routes: USERS_ROUTES,
  operations,
  dependencies,
});
