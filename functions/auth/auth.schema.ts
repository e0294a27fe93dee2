import * as z from 'zod/mini';
import { isId } from '../../layers/core/domain/ids';
import { PASSWORD_POLICY } from '../../layers/core/domain/password';
import { ROLES, USER_LIMITS } from '../../layers/core/domain/user';
import { userResource } from '../../layers/core/http/user.schema';

/**
 * `POST /api/auth/login`. The email is not checked for shape: an
 * impossible address gets the same 401 as an unknown one. `org_id`
 * names the organization; without it, the email's default account.
 */
export const loginBody = z.strictObject({
  email: z.string().check(z.minLength(1), z.maxLength(USER_LIMITS.emailMax)),
  password: z.string().check(z.minLength(1), z.maxLength(PASSWORD_POLICY.maxLength)),
  org_id: z.optional(
    z.string().check(z.refine((value) => isId('organization', value), 'must be an org_ id')),
  ),
});

/** `POST /api/auth/invitations/accept`: the token from the invitation, and the new password. */
export const acceptInvitationBody = z.strictObject({
  token: z.string().check(z.minLength(1), z.maxLength(200)),
  password: z
    .string()
    .check(z.minLength(PASSWORD_POLICY.minLength), z.maxLength(PASSWORD_POLICY.maxLength)),
});

/**
 * `POST /api/v1/auth/password-reset`: the email (not checked for shape:
 * any string gets the same answer, as sign-in's 401) and, for an email
 * with accounts in several organizations, which one.
 */
export const passwordResetBody = z.strictObject({
  email: z.string().check(z.minLength(1), z.maxLength(USER_LIMITS.emailMax)),
  org_id: z.optional(
    z.string().check(z.refine((value) => isId('organization', value), 'must be an org_ id')),
  ),
});

/** The one answer to every reset request. */
export const passwordResetAccepted = z.object({ message: z.string() });

/** `POST /api/v1/auth/password-reset/confirm`: the token from the mailed link, and the new password. */
export const confirmPasswordResetBody = z.strictObject({
  token: z.string().check(z.minLength(1), z.maxLength(200)),
  new_password: z
    .string()
    .check(z.minLength(PASSWORD_POLICY.minLength), z.maxLength(PASSWORD_POLICY.maxLength)),
});

/** `PUT /api/v1/auth/password`: the current password, and the new one. */
export const changePasswordBody = z.strictObject({
  current_password: z.string().check(z.minLength(1), z.maxLength(PASSWORD_POLICY.maxLength)),
  new_password: z
    .string()
    .check(z.minLength(PASSWORD_POLICY.minLength), z.maxLength(PASSWORD_POLICY.maxLength)),
});

/** What sign-in, refresh and `me` answer: the user and what the web application needs of the session. */
export const sessionResource = z.object({
  user: userResource,
  /** Send it as `X-CSRF-Token` with every cookie-authenticated POST, PUT or DELETE. */
  csrf_token: z.string(),
  /** When the cookie expires unless a request continues it (7 days on). */
  expires_at: z.string(),
  /** The web session's absolute cap: 30 days from sign-in, after which only a new sign-in helps. */
  session_expires_at: z.string(),
  /** When the web application should call refresh (an hour before `expires_at`). */
  refresh_after: z.string(),
});

/**
 * What the signed-in user may do now, from their own role and their
 * groups: the effective role, the groups that grant it, and the agents they
 * may use (`null`: all of the organization's).
 */
export const sessionAccess = z.object({
  role: z.enum(ROLES),
  group_ids: z.array(z.string()),
  agent_ids: z.nullable(z.array(z.string())),
});

/**
 * `GET /api/v1/auth/me`: the session, the access it has now, and the
 * organization's id and name (what the console's shell shows to every
 * role; the organization itself is read with the admin role).
 */
export const meResource = z.extend(sessionResource, {
  access: sessionAccess,
  organization: z.object({ id: z.string(), name: z.string() }),
  /**
   * The address this request came from as the service judges it (the
   * socket's peer, or the viewer's behind the console's distribution):
   * the one an IP allowlist must contain for this person to keep working.
   * The console shows it beside the allowlist.
   */
  source_ip: z.string(),
});
