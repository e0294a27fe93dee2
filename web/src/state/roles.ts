import type { components } from '../api/schema';

export type Me = components['schemas']['Me'];
export type Role = Me['access']['role'];

const ROLES: readonly Role[] = ['readonly', 'train', 'configure', 'admin'];

/**
 * Roles are ordered; each grants what the ones before it grant. Apart
 * from session.ts (which re-exports it) so pure logic can use it without
 * loading signals.
 */
export function roleAtLeast(held: Role, required: Role): boolean {
  return ROLES.indexOf(held) >= ROLES.indexOf(required);
}
