import { api, json } from './http-client';
import type { TestService } from './local-service';

/**
 * The HTTP steps every connector suite takes (issue 12): API calls, the
 * provider sign-in's start and the browser's trip through the stand-in's
 * consent to the callback. Every body is added to `seen`, the suite's scan
 * for secrets (D33). `service` is read at each call: suites start it in
 * `beforeAll`.
 */
export function connectorSteps(service: () => TestService, seen: string[]) {
  const call = async (path: string, options: Parameters<typeof api>[2] = {}) => {
    const response = await api(service().url, path, { key: service().adminKey, ...options });
    seen.push(response.text);
    return response;
  };

  async function start(sourceId: string, key = service().adminKey) {
    const response = await fetch(`${service().url}/api/v1/data-sources/${sourceId}/oauth/start`, {
      headers: { authorization: `Bearer ${key}` },
      redirect: 'manual',
    });
    const text = await response.text();
    seen.push(text);
    return { status: response.status, location: response.headers.get('location'), text };
  }

  /** The browser's trip: the provider's consent (given at once by the stand-in), then the callback. */
  async function consentAndCallback(authorizationUrl: string) {
    const consent = await fetch(authorizationUrl, { redirect: 'manual' });
    expect(consent.status).toBe(302);
    const callback = consent.headers.get('location') ?? '';
    const page = await fetch(callback, { redirect: 'manual' });
    const text = await page.text();
    seen.push(text);
    return { status: page.status, text, callback };
  }

  /** Signs the source in at its provider: start, consent, callback. */
  async function connect(sourceId: string, key = service().adminKey) {
    const started = await start(sourceId, key);
    expect(started.status).toBe(302);
    return consentAndCallback(started.location ?? '');
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

  return { call, start, consentAndCallback, connect, sourceOf, indexedDocuments, events };
}
