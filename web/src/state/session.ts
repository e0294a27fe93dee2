import { batch, computed, signal } from '@preact/signals';
import { ApiError } from '../api/api-error';
import { type ApiClient, type ApiClientOptions, unwrap } from '../api/client';
import type { components } from '../api/schema';
import type { Me, Role } from './roles';
import { browserStorage, forgetSignedIn, rememberSignedIn } from './session-hint';

export { type Me, type Role, roleAtLeast } from './roles';

type Refreshed = components['schemas']['Session'];

export type SessionStatus = 'loading' | 'signed-out' | 'signed-in';

/** When a refresh that failed for a reason other than 401 is tried again. */
const REFRESH_RETRY_MS = 60_000;
/** setTimeout's largest delay; a later refresh is rescheduled from there. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The signed-in person: who they are, what they may do and the
 * CSRF token, which lives in memory only and is read again with `me` after
 * a reload. Built by a factory (CONSOLE.md §3) so each test gets its own;
 * the factory also builds the API client, which reads the token from here
 * and reports a 401 back.
 */
export function createSession(
  makeClient: (hooks: Pick<ApiClientOptions, 'csrfToken' | 'onUnauthorized'>) => ApiClient,
) {
  const status = signal<SessionStatus>('loading');
  const me = signal<Me | null>(null);
  const csrfToken = signal<string | null>(null);
  /** The one-time "Create the administrator" page is offered (this machine, no user yet). */
  const setupAvailable = signal(false);
  /** Why the person is on the sign-in page, when it is not their choice (the session ended). */
  const notice = signal<string | null>(null);
  const role = computed<Role | null>(() => me.value?.access.role ?? null);
  let refreshTimer: ReturnType<typeof setTimeout> | undefined;

  const api = makeClient({
    csrfToken: () => csrfToken.value,
    onUnauthorized: () => expire(),
  });

  function clear(): void {
    clearTimeout(refreshTimer);
    forgetSignedIn(browserStorage());
    batch(() => {
      me.value = null;
      csrfToken.value = null;
      status.value = 'signed-out';
    });
  }

  /** A 401 from a call: back to sign-in, which returns to the page the person was on. */
  function expire(): void {
    if (status.value !== 'signed-in') return;
    notice.value = 'Your session has ended: sign in again to continue.';
    clear();
  }

  /** Refresh is due an hour before the cookie expires (`refresh_after`). */
  function scheduleRefresh(refreshAfter: string): void {
    clearTimeout(refreshTimer);
    const due = new Date(refreshAfter).getTime() - Date.now();
    const delay = Number.isNaN(due) ? REFRESH_RETRY_MS : Math.max(0, due);
    refreshTimer = setTimeout(
      () => (delay > MAX_TIMER_MS ? scheduleRefresh(refreshAfter) : void refresh()),
      Math.min(delay, MAX_TIMER_MS),
    );
  }

  async function refresh(): Promise<void> {
    let refreshed: Refreshed;
    try {
      refreshed = await unwrap(api.POST('/api/v1/auth/refresh'));
    } catch (error) {
      // A 401 has already signed the person out (the client's hook); anything else is tried again.
      if (!(error instanceof ApiError && error.status === 401)) {
        refreshTimer = setTimeout(() => void refresh(), REFRESH_RETRY_MS);
      }
      return;
    }
    const current = me.value;
    batch(() => {
      csrfToken.value = refreshed.csrf_token;
      if (current) me.value = { ...current, ...refreshed };
    });
    scheduleRefresh(refreshed.refresh_after);
  }

  function signedIn(loaded: Me): void {
    rememberSignedIn(browserStorage());
    batch(() => {
      me.value = loaded;
      csrfToken.value = loaded.csrf_token;
      notice.value = null;
      setupAvailable.value = false;
      status.value = 'signed-in';
    });
    scheduleRefresh(loaded.refresh_after);
  }

  /**
   * Who is signed in, if anyone: on start, after a reload, and after every
   * way of signing in. `ask: false` (the sign-in page, in a browser that was
   * not signed in) takes "nobody" without asking.
   */
  async function load({ ask = true }: { readonly ask?: boolean } = {}): Promise<void> {
    if (ask) {
      try {
        signedIn(await unwrap(api.GET('/api/v1/auth/me')));
        return;
      } catch (error) {
        if (!(error instanceof ApiError && error.status === 401)) throw error;
      }
    }
    // Not signed in: offered only on the machine itself while nobody exists (a 404 anywhere else).
    const setup = await api.GET('/api/v1/setup').catch(() => null);
    batch(() => {
      setupAvailable.value = setup?.data?.available === true;
      clear();
    });
  }

  return {
    api,
    status,
    me,
    role,
    csrfToken,
    setupAvailable,
    notice,
    load,
    refresh,
    /** `orgId` names the organization; without it the email's default account signs in. */
    async signIn(email: string, password: string, orgId?: string): Promise<void> {
      const body = orgId ? { email, password, org_id: orgId } : { email, password };
      await unwrap(api.POST('/api/v1/auth/login', { body }));
      await load();
    },
    /**
     * Every earlier session ends, this one too; the answer is a new
     * session (its cookie is set), whose CSRF token replaces the old one.
     */
    async changePassword(currentPassword: string, newPassword: string): Promise<void> {
      const changed = await unwrap(
        api.PUT('/api/v1/auth/password', {
          body: { current_password: currentPassword, new_password: newPassword },
        }),
      );
      const current = me.value;
      batch(() => {
        csrfToken.value = changed.csrf_token;
        if (current) me.value = { ...current, ...changed };
      });
      scheduleRefresh(changed.refresh_after);
    },
    async acceptInvitation(token: string, password: string): Promise<void> {
      await unwrap(api.POST('/api/v1/auth/invitations/accept', { body: { token, password } }));
      await load();
    },
    async createAdministrator(body: { email: string; name: string; password: string }) {
      await unwrap(api.POST('/api/v1/setup/administrator', { body }));
      await load();
    },
    async signOut(): Promise<void> {
      try {
        await unwrap(api.DELETE('/api/v1/auth/logout'));
      } finally {
        notice.value = null;
        clear();
      }
    },
  };
}

export type Session = ReturnType<typeof createSession>;
