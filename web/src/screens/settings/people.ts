import { ApiError } from '../../api/api-error';
import { type ApiClient, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import type { Role } from '../../state/roles';

export type UserView = components['schemas']['User'];
export type GroupView = components['schemas']['Group'];
export type Invitation = components['schemas']['Invitation'];

/** D13's roles, each with what it adds, for the role choices. */
export const ROLE_CHOICES: ReadonlyArray<readonly [Role, string]> = [
  ['readonly', 'readonly: asks agents and reads'],
  ['train', 'train: also feedback and the knowledge base'],
  ['configure', 'configure: also agents, data sources and webhooks'],
  ['admin', 'admin: everything, people and keys included'],
];

/** How a user's status reads in the list. */
export const STATUS_WORDS: Readonly<Record<UserView['status'], string>> = {
  active: 'Active',
  invited: 'Invited',
  deactivated: 'Deactivated',
};

/** The lists' largest page, for lists read whole (the users a member is chosen from). */
const WHOLE_PAGE = 200;
const MOST_PAGES = 10;

/** Every user of the organization, by name, for choosing members (at most 2,000). */
export async function allUsers(api: ApiClient, signal: AbortSignal): Promise<UserView[]> {
  const users: UserView[] = [];
  for (let page = 0; page < MOST_PAGES; page += 1) {
    const list = await unwrap(
      api.GET('/api/v1/users', {
        params: { query: { limit: String(WHOLE_PAGE), offset: String(page * WHOLE_PAGE) } },
        signal,
      }),
    );
    users.push(...list.users);
    if (list.users.length < WHOLE_PAGE || users.length >= list.total) break;
  }
  return users.sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * What a refusal says about one field (D1's `details.fields`), for the
 * sentence under it; null when it names another field or none.
 */
export function fieldProblem(failure: unknown, path: string): string | null {
  if (!(failure instanceof ApiError)) return null;
  return failure.fields.find((field) => field.path === path)?.message ?? null;
}

/** True when a failure is fully said by the fields shown (so no notice repeats it). */
export function onlyFields(failure: unknown, shown: readonly string[]): boolean {
  if (!(failure instanceof ApiError) || failure.fields.length === 0) return false;
  return failure.fields.every((field) => shown.includes(field.path));
}

/** The page number in `?page=` (1 when absent or not a page). */
export function pageOf(query: Record<string, string>): number {
  const page = Number(query.page);
  return Number.isInteger(page) && page >= 1 ? page : 1;
}
