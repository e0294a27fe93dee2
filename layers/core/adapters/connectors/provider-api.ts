import {
  CONNECTOR_LIMITS,
  ConnectionLostError,
  ProviderUnavailableError,
} from '../../domain/connector';
import type { Clock } from '../../ports/clock.port';
import type { AccessGrant } from '../../ports/connector.port';
import { type ProviderFetch, retryAfterSeconds } from './oauth-http';

/** What a provider API answered: its JSON, or 404 (a deleted or unshared item). */
export type ApiAnswer = { readonly status: 200; readonly body: unknown } | { readonly status: 404 };

/** Waits `ms`, or less if the sync is stopped. */
export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;

export const abortableSleep: Sleep = (ms, signal) =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

/**
 * A provider's REST API with the grant's bearer token (P152): 401 renews the
 * token once and retries, a second 401 means access was revoked
 * (`ConnectionLostError`); 429 and 503 are waited out as `Retry-After`
 * says (with back-off when it does not), within bounds, else the attempt
 * fails and the sync job is retried; other failures fail the attempt.
 */
export class ProviderApi {
  constructor(
    private readonly fetch: ProviderFetch,
    private readonly grant: AccessGrant,
    private readonly clock: Clock,
    private readonly signal: AbortSignal,
    private readonly sleep: Sleep = abortableSleep,
  ) {}

  async getJson(
    url: string,
    init: { readonly method?: 'GET' | 'POST'; readonly body?: string } = {},
  ): Promise<ApiAnswer> {
    let refreshed = false;
    let waits = 0;
    for (;;) {
      const response = await this.fetch(url, {
        method: init.method ?? 'GET',
        headers: {
          Authorization: `Bearer ${await this.grant.accessToken()}`,
          Accept: 'application/json',
          ...(init.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
        },
        ...(init.body !== undefined ? { body: init.body } : {}),
      });
      const host = new URL(url).host;
      if (response.status === 401) {
        await response.arrayBuffer();
        if (refreshed) {
          throw new ConnectionLostError(
            `${host} refused a freshly renewed access token (401): access was revoked; reconnect the data source`,
          );
        }
        refreshed = true;
        await this.grant.refresh();
        continue;
      }
      if (response.status === 429 || response.status === 503) {
        await response.arrayBuffer();
        const told = retryAfterSeconds(response.headers.get('retry-after'), this.clock.now());
        const seconds = told ?? 2 ** waits;
        waits += 1;
        if (
          waits > CONNECTOR_LIMITS.maxRateLimitRetries ||
          seconds > CONNECTOR_LIMITS.maxRetryAfterSeconds
        ) {
          throw new ProviderUnavailableError(
            `${host} kept answering ${response.status} (Retry-After ${told ?? 'not given'}); the sync is retried later`,
          );
        }
        await this.sleep(seconds * 1000, this.signal);
        if (this.signal.aborted)
          throw new ProviderUnavailableError('The sync was stopped at its time limit');
        continue;
      }
      if (response.status === 404 || response.status === 410) {
        await response.arrayBuffer();
        return { status: 404 };
      }
      if (response.status !== 200) {
        await response.arrayBuffer();
        throw new ProviderUnavailableError(`${host} answered ${response.status}`);
      }
      const text = await response.text();
      try {
        return { status: 200, body: JSON.parse(text) };
      } catch {
        throw new ProviderUnavailableError(`${host} answered with something that is not JSON`);
      }
    }
  }
}
