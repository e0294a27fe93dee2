import type { components } from '../../../api/schema';
import { formatRelative } from '../../../format/format';

export type ApiKeyList = components['schemas']['ApiKeyList'];
export type ApiKey = ApiKeyList['keys'][number];
export type Environment = ApiKeyList['environment'];
export type Scope = ApiKey['scopes'][number];

/** The spec's scopes (Authentication, "Scopes"), in its order, each with what it permits. */
export const SCOPE_CHOICES: ReadonlyArray<{ readonly scope: Scope; readonly permits: string }> = [
  { scope: 'Read', permits: 'read agents, data sources and interactions' },
  { scope: 'Write', permits: 'create, change and delete agents and data sources' },
  { scope: 'Execute', permits: 'ask agents questions (query and chat)' },
  { scope: 'Admin', permits: 'everything, organization settings included' },
];

/**
 * What a key of an environment is called and how its value starts, so
 * the dialog can say which one the new key will be before it is made.
 */
export function environmentWords(environment: Environment): {
  readonly label: string;
  readonly prefix: string;
} {
  return environment === 'live'
    ? { label: 'Live', prefix: 'svcsk_live_' }
    : { label: 'Test', prefix: 'svcsk_test_' };
}

/** The scopes chosen in the form, in the spec's order; a refusal in words when none is. */
export function chosenScopes(form: FormData): { scopes: Scope[]; problem: string | null } {
  const picked = new Set(form.getAll('scopes').map(String));
  const scopes = SCOPE_CHOICES.map((choice) => choice.scope).filter((scope) => picked.has(scope));
  return {
    scopes,
    problem:
      scopes.length === 0 ? 'Choose at least one scope: a key without one can do nothing.' : null,
  };
}

/** Last use to the minute, or that it never happened. */
export function lastUseWords(lastUsedAt: string | null, now: number = Date.now()): string {
  if (lastUsedAt === null) return 'Never used';
  // Within the minute a use may be stamped "in 0 seconds"; say it plainly.
  if (Math.abs(Date.parse(lastUsedAt) - now) < 60_000) return 'In the last minute';
  return formatRelative(lastUsedAt, now);
}

/** How a key is told apart once its value is gone: its last four characters. */
export function keyEnding(last4: string): string {
  return `…${last4}`;
}
