import type { Role } from '../../layers/core/domain/user';
import { api, json } from './http-client';
import type { TestService } from './local-service';
import { createTestUser, signedIn, type TestUser, type WebSession } from './web-session';

/** Where the provider sends the browser back (D26); the flow cookie is scoped to it (P215). */
const CALLBACK_PATH = '/api/oauth/callback';

/**
 * The HTTP steps every connector suite takes (issue 12): API calls, the
 * provider sign-in's start by a signed-in person's browser (P215, P216: a
 * session, same-site, with its CSRF token) and that browser's trip through
 * the stand-in's consent to the callback, carrying the flow cookie the start
 * set. Every body is added to `seen`, the suite's scan for secrets (D33).
 * `service` is read at each call: suites start it in `beforeAll`.
 */
export function connectorSteps(service: () => TestService, seen: string[]) {
  const call = async (path: string, options: Parameters<typeof api>[2] = {}) => {
    const response = await api(service().url, path, { key: service().adminKey, ...options });
    seen.push(response.text);
    return response;
  };

  const users = new Map<string, Promise<TestUser>>();
  /**
   * A fresh browser signed in as a user of the organization (the service's
   * own, an admin, by default). The user is made once; each browser signs in
   * anew, so a suite's clock may run past a session's lifetime.
   */
  async function browser(
    options: { readonly orgId?: string; readonly role?: Role } = {},
  ): Promise<WebSession> {
    const orgId = options.orgId ?? service().orgId;
    const role = options.role ?? 'admin';
    const id = `${service().url} ${orgId} ${role}`;
    let user = users.get(id);
    if (!user) {
      user = createTestUser(service(), { orgId, role });
      users.set(id, user);
    }
    return signedIn(service(), await user);
  }

  /**
   * `oauth/start` as the web application sends it: the session cookie and
   * its CSRF token, same-origin; the redirect is not followed. The flow
   * cookie it sets stays in the browser's jar.
   */
  async function start(sourceId: string, as?: WebSession) {
    const from = as ?? (await browser());
    const response = await from.request(`/api/v1/data-sources/${sourceId}/oauth/start`, {
      headers: { 'x-csrf-token': from.csrfToken ?? '', 'sec-fetch-site': 'same-origin' },
      redirect: 'manual',
    });
    seen.push(response.text);
    return {
      status: response.status,
      location: response.headers.get('location'),
      text: response.text,
      browser: from,
    };
  }

  /**
   * The browser's trip: the provider's consent (given at once by the
   * stand-in, which sets no cookie of ours), then the callback with the
   * cookies a browser sends there (none without `browser`).
   */
  async function consentAndCallback(authorizationUrl: string, browser?: WebSession) {
    const consent = await fetch(authorizationUrl, { redirect: 'manual' });
    expect(consent.status).toBe(302);
    const callback = consent.headers.get('location') ?? '';
    const cookie = browser?.jar.header(CALLBACK_PATH);
    const page = await fetch(callback, {
      redirect: 'manual',
      headers: cookie ? { cookie } : {},
    });
    const text = await page.text();
    seen.push(text);
    return { status: page.status, text, callback, setCookie: page.headers.getSetCookie() };
  }

  /** Signs the source in at its provider: start, consent, callback, all in one browser. */
  async function connect(sourceId: string, as?: WebSession) {
    const started = await start(sourceId, as);
    expect(started.status).toBe(302);
    return consentAndCallback(started.location ?? '', started.browser);
  }

  const sourceOf = async (id: string) => json(await call(`/api/v1/data-sources/${id}`));
  /** What the index holds for the source: its documents and their hashes. */
  const indexedDocuments = (sourceId: string) =>
    service().runtime.dependencies.retrieval.documentHashes(service().orgId, sourceId);
  /** The outbox's undelivered events of one type (webhooks are sent from there). */
  const events = async (type: string) =>
    (await service().runtime.dependencies.outbox.pending(500))
      .flatMap((batch) => batch.events)
      .filter((event) => event.type === type);

  return {
    call,
    browser,
    start,
    consentAndCallback,
    connect,
    sourceOf,
    indexedDocuments,
    events,
  };
}
