/**
 * D13: the web application's roles, each adding to the one before it:
 * `readonly` views; `train` adds feedback and knowledge-base editing;
 * `configure` adds agents, data sources and webhooks; `admin` adds users,
 * groups, keys, model keys, the organization, SSO and the IP allowlist.
 */
export const ROLES = ['readonly', 'train', 'configure', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** D13: roles are ordered; a role grants everything the roles before it grant. */
export function roleAtLeast(held: Role, required: Role): boolean {
  return ROLES.indexOf(held) >= ROLES.indexOf(required);
}

/**
 * P61: `invited` until the invitation is accepted (no password yet),
 * `active`, or `deactivated` (cannot sign in; every session ends at its
 * next request). Users are deactivated, never deleted: their email stays
 * taken and their history keeps its author.
 */
export const USER_STATUSES = ['invited', 'active', 'deactivated'] as const;
export type UserStatus = (typeof USER_STATUSES)[number];

export const USER_LIMITS = {
  /** RFC 5321's limit on a forward path, less the angle brackets. */
  emailMax: 254,
  nameMax: 200,
} as const;

/** A user as stored and as returned (field names are the API's); never their password. */
export interface User {
  readonly id: string;
  readonly email: string;
  readonly name: string;
  readonly role: Role;
  readonly status: UserStatus;
  readonly created_at: string;
  readonly updated_at: string;
  readonly last_login_at: string | null;
}

export type UserChanges = Partial<Pick<User, 'email' | 'name' | 'role' | 'status'>>;

/**
 * Emails are unique per organization and compared case-insensitively (P60):
 * this is the form kept for that comparison. The address is stored as given
 * for display.
 */
export function normalizeEmail(email: string): string {
  return email.trim().normalize('NFC').toLowerCase();
}
