/**
 * Whether this browser was signed in when the console last knew: a flag in
 * `localStorage`, no secret (the session itself is an HttpOnly cookie the
 * console cannot read). It spares the sign-in page its "who is signed in?"
 * request when the answer can only be "nobody": that request answers 401
 * then, which the browser reports as an error in its console.
 */
const STORAGE_KEY = 'svc-console-signed-in';

type HintStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

/** The browser's storage, or null where it is refused (some private modes). */
export function browserStorage(): HintStorage | null {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null;
  }
}

export function rememberSignedIn(storage: HintStorage | null): void {
  try {
    storage?.setItem(STORAGE_KEY, '1');
  } catch {
    // full or refused: the sign-in page asks the service, as it did before
  }
}

export function forgetSignedIn(storage: HintStorage | null): void {
  try {
    storage?.removeItem(STORAGE_KEY);
  } catch {
    // refused: nothing was kept
  }
}

/**
 * Whether the console must ask the service who is signed in on start: on
 * every page but sign-in (a single sign-on returns to the page asked for,
 * never to sign-in), and on sign-in when this browser was signed in, or
 * when it cannot tell.
 */
export function mustAskWhoIsSignedIn(
  path: string,
  signInPath: string,
  storage: HintStorage | null,
): boolean {
  if (path !== signInPath || storage === null) return true;
  try {
    return storage.getItem(STORAGE_KEY) !== null;
  } catch {
    return true;
  }
}
