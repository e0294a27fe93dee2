import * as z from 'zod/mini';
import { ROLES, USER_STATUSES, type User } from '../domain/user';

/** A user as every endpoint returns it, with its organization; never a password or hash. */
export const userResource = z.object({
  id: z.string(),
  org_id: z.string(),
  email: z.string(),
  name: z.string(),
  role: z.enum(ROLES),
  status: z.enum(USER_STATUSES),
  created_at: z.string(),
  updated_at: z.string(),
  last_login_at: z.nullable(z.string()),
});

export type UserView = z.infer<typeof userResource>;

export function userView(orgId: string, user: User): UserView {
  return { ...user, org_id: orgId };
}
