import type { Principal, SessionPrincipal } from '../../layers/core/domain/principal';
import { consoleOrigin } from '../../layers/core/http/console-url';
import { httpFunction } from '../../layers/core/http/http-function';
import { CSRF_HEADER } from '../../layers/core/http/middlewares/authenticate';
import { operationsWith, publicOperationsWith } from '../../layers/core/http/operation';
import { emptyResponse, jsonResponse } from '../../layers/core/http/responses';
import { AUTH_ROUTES } from '../../layers/core/http/routes/auth';
import { clearedSessionCookie } from '../../layers/core/http/session-cookie';
import { sessionBody, withNewSession } from '../../layers/core/http/session-response';
import { changePassword } from '../../layers/core/use-cases/auth/password-change';
import {
  confirmPasswordReset,
  requestPasswordReset,
} from '../../layers/core/use-cases/auth/password-reset';
import { endSession, signIn, startSession } from '../../layers/core/use-cases/auth/sessions';
import { acceptInvitation, getUser } from '../../layers/core/use-cases/users/user-use-cases';
import {
  acceptInvitationBody,
  changePasswordBody,
  confirmPasswordResetBody,
  loginBody,
  meResource,
  passwordResetAccepted,
  passwordResetBody,
  sessionResource,
} from './auth.schema';
import { type AuthDependencies, dependencies } from './wiring';

const operation = operationsWith<AuthDependencies>();
const publicOperation = publicOperationsWith<AuthDependencies>();

/** The effective role, the groups that count, and the agents the user may use (null: all). */
function accessView(principal: SessionPrincipal) {
  return {
    role: principal.role,
    group_ids: [...principal.groupIds],
    agent_ids: principal.agents.kind === 'all' ? null : [...principal.agents.agentIds].sort(),
  };
}

/** Routes with `access: 'session'` are reached by sessions only (the middleware refuses keys). */
function sessionOf(principal: Principal): SessionPrincipal {
  if (principal.kind !== 'session') throw new Error('a session route reached with an API key');
  return principal;
}

/** What every password reset request is told, account or none. */
const PASSWORD_RESET_ANSWER =
  'If an account with this email can sign in with a password, a link to choose a new one is on its way. It works once, for an hour.';

/** Web sign-in: `/api/v1/auth/…` and the web session's `/api/auth/…`. */
export const operations = {
  login: publicOperation({
    summary: 'Sign in with email and password',
    body: loginBody,
    responses: {
      200: {
        description: 'Signed in: the svc_session cookie is set; keep csrf_token for changes',
        schema: sessionResource,
      },
    },
    async handle({ body, client, deps }) {
      const signedIn = await signIn(deps, {
        email: body.email,
        password: body.password,
        orgId: body.org_id,
        sourceIp: client.sourceIp,
        currentToken: client.sessionToken,
      });
      return withNewSession(signedIn.orgId, signedIn.user, signedIn.session);
    },
  }),
  acceptInvitation: publicOperation({
    summary: "Accept an invitation: set the new user's password and sign in",
    body: acceptInvitationBody,
    responses: {
      200: { description: 'The password is set and the user signed in', schema: sessionResource },
    },
    async handle({ body, deps }) {
      const accepted = await acceptInvitation(deps, body);
      const session = await startSession(deps, accepted.orgId, accepted.user.id);
      return withNewSession(accepted.orgId, accepted.user, session);
    },
  }),
  requestPasswordReset: publicOperation({
    summary:
      'Ask for a password reset link by mail (the same answer whether or not the account exists)',
    body: passwordResetBody,
    responses: {
      202: {
        description:
          'Always this answer: if the account can sign in with a password, a single-use link valid one hour was mailed to it',
        schema: passwordResetAccepted,
      },
    },
    async handle({ body, client, deps }) {
      await requestPasswordReset(deps, {
        email: body.email,
        orgId: body.org_id,
        sourceIp: client.sourceIp,
        consoleOrigin: consoleOrigin({
          publicBaseUrl: deps.consoleOrigin ?? deps.publicBaseUrl(),
          apiBaseUrl: client.apiBaseUrl,
        }),
      });
      return jsonResponse(202, { message: PASSWORD_RESET_ANSWER });
    },
  }),
  confirmPasswordReset: publicOperation({
    summary: "Set a new password from a reset link: the user's sessions end; sign in afterwards",
    body: confirmPasswordResetBody,
    responses: {
      204: { description: 'The password is set and every session of the user has ended' },
    },
    async handle({ body, deps }) {
      await confirmPasswordReset(deps, { token: body.token, newPassword: body.new_password });
      return emptyResponse(204);
    },
  }),
  refresh: operation({
    summary: 'Re-issue the session cookie (7 more days, within 30 days of sign-in)',
    responses: { 200: { description: 'The continued session', schema: sessionResource } },
    async handle({ principal, session, deps }) {
      const signedIn = sessionOf(principal);
      if (!session) throw new Error('a session request without its continued session');
      const user = await getUser(deps, signedIn.orgId, signedIn.userId);
      const response = jsonResponse(200, sessionBody(signedIn.orgId, user, session));
      response.headers = { ...response.headers, [CSRF_HEADER]: session.csrfToken };
      return response;
    },
  }),
  me: operation({
    summary:
      'The signed-in user, their organization, and what their role and groups let them do now',
    responses: {
      200: {
        description: 'The user, the session, its access and the organization',
        schema: meResource,
      },
    },
    async handle({ principal, session, client, deps }) {
      const signedIn = sessionOf(principal);
      if (!session) throw new Error('a session request without its continued session');
      const [user, organization] = await Promise.all([
        getUser(deps, signedIn.orgId, signedIn.userId),
        deps.organizations.get(signedIn.orgId),
      ]);
      if (!organization) throw new Error('a session of an organization that does not exist');
      return jsonResponse(200, {
        ...sessionBody(signedIn.orgId, user, session),
        access: accessView(signedIn),
        // The console names the organization for every role (reading it whole takes admin).
        organization: { id: organization.id, name: organization.name },
        // The address the own-address check would use for this person's allowlist change.
        source_ip: client.sourceIp,
      });
    },
  }),
  changePassword: operation({
    summary: "Change the signed-in user's password: their other sessions end",
    body: changePasswordBody,
    responses: {
      200: {
        description:
          'Changed: every earlier session of the user has ended; this browser continues in a new one (new cookie and csrf_token)',
        schema: sessionResource,
      },
    },
    async handle({ body, principal, deps }) {
      const signedIn = sessionOf(principal);
      const changed = await changePassword(deps, signedIn, {
        currentPassword: body.current_password,
        newPassword: body.new_password,
      });
      return withNewSession(signedIn.orgId, changed.user, changed.session);
    },
  }),
  logout: operation({
    summary: 'Sign out: the cookie is cleared and the session revoked',
    responses: { 204: { description: 'Signed out' } },
    async handle({ principal, deps }) {
      await endSession(deps, sessionOf(principal));
      const response = emptyResponse(204);
      response.multiValueHeaders = { 'Set-Cookie': [clearedSessionCookie()] };
      return response;
    },
  }),
};

export const handler = httpFunction({
  family: 'auth',
  routes: AUTH_ROUTES,
  operations,
  dependencies,
});
