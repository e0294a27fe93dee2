import { normalizeDomain } from './domain-name';
/**
 * The web application's roles, each adding to the one before it:
 * `readonly` views; `train` adds feedback and knowledge-base editing;
 * `configure` adds agents, data sources and webhooks; `admin` adds users,
 * groups, keys, model keys, the organization, SSO and the IP allowlist.
 */
export const ROLES = ['readonly', 'train', 'configure', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** Roles are ordered; a role grants everything the roles before it grant. */
export function roleAtLeast(held: Role, required: Role): boolean {
  return ROLES.indexOf(held) >= ROLES.indexOf(required);
}

/**
 * `invited` until the invitation is accepted (no password yet),
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
 * Characters no address may hold: controls (NUL included), format
 * characters (zero-width joiners, bidirectional overrides: invisible, so two
 * addresses would look alike), and spaces of any kind.
 */
const UNSAFE_IN_EMAIL = /[\p{Cc}\p{Cf}\p{Z}\s]/u;

/**
 * An address as it is stored and shown: trimmed and folded by Unicode
 * NFKC, so compatibility look-alikes (fullwidth letters, ligatures, circled
 * or superscript digits) become the characters they look like. Null when it
 * cannot be an address: unsafe characters, no local part, or a domain that is
 * not a host name (domain/sso.ts `normalizeDomain`, which also applies IDNA).
 */
export function displayEmail(email: string): string | null {
  const folded = email.trim().normalize('NFKC');
  const at = folded.lastIndexOf('@');
  if (UNSAFE_IN_EMAIL.test(folded) || at <= 0) return null;
  return normalizeDomain(folded.slice(at + 1)) === null ? null : folded;
}

/**
 * What an address written with compatibility look-alikes (fullwidth letters
 * as in `user@ａ.example`, ligatures, circled or superscript digits) folds
 * to; null when it is written plainly. Only compatibility differences count:
 * a letter and its accent typed apart (a canonical equivalent) is the same
 * text, not a look-alike. New addresses are refused in this case (the
 * person is asked to write the plain one), while an address typed to sign
 * in is folded, since it can only name the plain address it looks like.
 */
export function lookAlikeFolding(email: string): string | null {
  const written = email.trim().normalize('NFC');
  const folded = written.normalize('NFKC');
  return folded === written ? null : folded;
}

/**
 * Emails are unique per organization and compared case-insensitively
 * in this form: the display form's local part in lower case, and its
 * domain in IDNA's ASCII form, so `readonly@ａ.example` and
 * `READONLY@a.example` are one address. Something that is not an address
 * (only ever given to sign-in, which answers it like an unknown email) is
 * compared folded and lower-cased as it is.
 */
export function normalizeEmail(email: string): string {
  const display = displayEmail(email);
  if (display === null) return email.trim().normalize('NFKC').toLowerCase();
  const at = display.lastIndexOf('@');
  return `${display.slice(0, at).toLowerCase()}@${normalizeDomain(display.slice(at + 1))}`;
}
