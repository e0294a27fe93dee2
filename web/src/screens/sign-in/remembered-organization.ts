/**
 * The organization each email last signed in to on this browser, so
 * a person with accounts in several organizations need not type its
 * id every time. `localStorage` holds no secret: the address (lower case)
 * and an `org_` id, the most recent few only.
 */
const STORAGE_KEY = 'svc-console-sign-in-organizations';
/** Enough for the people who share one browser; older entries fall off. */
const MAX_ENTRIES = 10;

/** An organization id as the service writes it (`org_` and a lower-case ULID). */
export const ORGANIZATION_ID_PATTERN = 'org_[0-9a-z]{26}';
const ORGANIZATION_ID = new RegExp(`^${ORGANIZATION_ID_PATTERN}$`);

type Entry = readonly [email: string, orgId: string];

const keyOf = (email: string) => email.trim().toLowerCase();

function read(storage: Storage): Entry[] {
  try {
    const parsed: unknown = JSON.parse(storage.getItem(STORAGE_KEY) ?? '[]');
    if (!Array.isArray(parsed)) return [];
    return parsed.filter(
      (entry): entry is Entry =>
        Array.isArray(entry) &&
        typeof entry[0] === 'string' &&
        typeof entry[1] === 'string' &&
        ORGANIZATION_ID.test(entry[1]),
    );
  } catch {
    return []; // unreadable (another version, a hand edit): start again
  }
}

/** The organization `email` last signed in to on this browser, if any. */
export function rememberedOrganization(storage: Storage | null, email: string): string | null {
  if (!storage || !email.trim()) return null;
  const key = keyOf(email);
  return read(storage).find(([entry]) => entry === key)?.[1] ?? null;
}

/** After a sign-in: `email` last signed in to `orgId` (first in the list, the oldest dropped). */
export function rememberOrganization(storage: Storage | null, email: string, orgId: string): void {
  if (!storage || !email.trim() || !ORGANIZATION_ID.test(orgId)) return;
  const key = keyOf(email);
  const entries = [
    [key, orgId] as const,
    ...read(storage).filter(([entry]) => entry !== key),
  ].slice(0, MAX_ENTRIES);
  try {
    storage.setItem(STORAGE_KEY, JSON.stringify(entries));
  } catch {
    // Storage full or refused (private browsing): the person types the id next time.
  }
}

/** `localStorage`, or null where the browser refuses it (some private modes throw on access). */
export function browserStorage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}
