import * as z from 'zod/mini';
import { ROLES, USER_LIMITS } from '../../layers/core/domain/user';
import { paginationQuery } from '../../layers/core/http/pagination.schema';
import { userResource } from '../../layers/core/http/user.schema';

const email = z.pipe(
  z.string().check(z.trim(), z.maxLength(USER_LIMITS.emailMax)),
  z.email('must be an email address'),
);

/** Spec: `POST /api/v1/users` takes email, name and role. */
export const createUserBody = z.strictObject({
  email,
  name: z
    .string()
    .check(z.trim(), z.minLength(1, 'must not be empty'), z.maxLength(USER_LIMITS.nameMax)),
  role: z.enum(ROLES),
});

/**
 * `PUT /api/v1/users/:id`: the same fields, all optional, and the status
 * (`deactivated` to deactivate, `active` to restore).
 */
export const updateUserBody = z.extend(z.partial(createUserBody), {
  status: z.optional(z.enum(['active', 'deactivated'])),
});

export const listUsersQuery = z.strictObject(paginationQuery);

/** The invitation, shown once to the administrator who asked for it (and mailed). */
export const invitationResource = z.object({
  token: z.string(),
  expires_at: z.string(),
  /** POST the token and a password here. */
  accept_path: z.string(),
  /** Issue 21: the console's page that accepts it, the token in the URL fragment: pass this on. */
  invitation_url: z.string(),
  /**
   * Whether it went out by mail to the user's address (false: no mail
   * service is configured, or it refused; pass the link on by hand).
   */
  mailed: z.boolean(),
});

export const createdUserResource = z.extend(userResource, { invitation: invitationResource });

export const userList = z.object({
  users: z.array(userResource),
  total: z.int(),
  limit: z.int(),
  offset: z.int(),
});

/**
 * The 403 an Admin key gets where a change would give or take the
 * admin role or touch an administrator (added to the route's own 403s).
 */
export const adminRoleRefusal = {
  description:
    'an API key giving or taking the admin role, or changing an administrator or an admin-role group: details.reason admin_role_needs_session',
};
