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

/** A file's bytes, 404 (deleted or unshared meanwhile), or 403 with the provider's reason (this one file is refused). */
export type BytesAnswer =
  | { readonly status: 200; readonly bytes: Buffer; readonly contentType: string | null }
  | { readonly status: 404 }
  | { readonly status: 403; readonly reason: string };

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

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
 * A provider's REST API with the grant's bearer token: 401 renews the
 * token once and retries, a second 401 means access was revoked
 * (`ConnectionLostError`); 429 and 503 (and Google's 403s naming a rate
 * limit) are waited out as `Retry-After` says (with back-off when it
 * does not), within bounds, else the attempt fails and the sync job is
 * retried; other failures fail the attempt.
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
    const response = await this.send(url, init);
    const host = new URL(url).host;
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

  /**
   * A file's bytes (a download or an export), within the SSRF guard's per-response cap
   * or `download`'s larger one. A redirect to a pre-authenticated
   * address — Microsoft Graph's `/content`, Confluence's attachment
   * `/download` — is followed once without the bearer token (it must not
   * leave the API). A 403 that is not a rate limit is the provider refusing
   * this one item (Google's `fileNotDownloadable`, `exportSizeLimitExceeded`,
   * …): the item is skipped with the provider's reason, the sync goes on.
   */
  async getBytes(url: string, download?: ProviderFetch): Promise<BytesAnswer> {
    const fetch = download ?? this.fetch;
    let response = await this.send(url, { accept: '*/*', fetch });
    if (REDIRECTS.has(response.status)) {
      await response.arrayBuffer();
      const location = response.headers.get('location');
      if (!location) throw new ProviderUnavailableError(`${new URL(url).host} redirected nowhere`);
      response = await this.send(new URL(location, url).toString(), {
        accept: '*/*',
        fetch,
        anonymous: true,
      });
    }
    if (response.status === 404 || response.status === 410) {
      await response.arrayBuffer();
      return { status: 404 };
    }
    if (response.status === 403) {
      const refusal = googleErrorOf(await response.text());
      return { status: 403, reason: refusal.message ?? refusal.reason ?? 'forbidden' };
    }
    if (response.status !== 200) {
      await response.arrayBuffer();
      throw new ProviderUnavailableError(`${new URL(url).host} answered ${response.status}`);
    }
    return {
      status: 200,
      bytes: Buffer.from(await response.arrayBuffer()),
      contentType: response.headers.get('content-type'),
    };
  }

  /**
   * One request through renewals (401) and rate-limit waits (429, 503, and
   * Google's 403s naming a rate limit): the final response, whatever
   * its status, for the caller to read (Graph's delta answers 410 with a
   * `Location` to start again).
   */
  async send(
    url: string,
    init: {
      readonly method?: 'GET' | 'POST';
      readonly body?: string;
      readonly accept?: string;
      /** Another fetch (a file download's larger cap); the SSRF guard's policy either way. */
      readonly fetch?: ProviderFetch;
      /** A pre-authenticated address: no bearer token, and a 401 is the answer. */
      readonly anonymous?: boolean;
    } = {},
  ): Promise<Response> {
    let refreshed = false;
    let waits = 0;
    const fetch = init.fetch ?? this.fetch;
    for (;;) {
      const response = await this.attempt(fetch, url, {
        method: init.method ?? 'GET',
        headers: {
          ...(init.anonymous ? {} : { Authorization: `Bearer ${await this.grant.accessToken()}` }),
          Accept: init.accept ?? 'application/json',
          ...(init.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
        },
        ...(init.body !== undefined ? { body: init.body } : {}),
      });
      const host = new URL(url).host;
      if (response.status === 401 && !init.anonymous) {
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
      let rateLimited = response.status === 429 || response.status === 503;
      let forbidden: Response | null = null;
      if (response.status === 403) {
        // Google answers some rate limits with 403 and a reason in the body.
        const text = await response.text();
        rateLimited = RATE_LIMIT_REASONS.has(googleErrorOf(text).reason ?? '');
        forbidden = new Response(text, { status: 403, headers: response.headers });
      }
      if (rateLimited) {
        if (!forbidden) await response.arrayBuffer();
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
      return forbidden ?? response;
    }
  }

  /**
   * One exchange; a GET whose connection was reset or closed before an
   * answer (a keep-alive connection the server was closing) is sent once
   * more, since reading is idempotent.
   */
  private async attempt(fetch: ProviderFetch, url: string, init: RequestInit): Promise<Response> {
    try {
      return await fetch(url, init);
    } catch (error) {
      const method = init.method ?? 'GET';
      if (
        method !== 'GET' ||
        !(error instanceof ProviderUnavailableError) ||
        !/^connection (reset|closed before a response)/.test(error.message)
      ) {
        throw error;
      }
      return fetch(url, init);
    }
  }
}

/**
 * Google's documented rate-limit reasons (Drive "Resolve errors"): answered
 * with 403 or 429 and `error.errors[].reason`, to be retried with back-off.
 */
const RATE_LIMIT_REASONS = new Set(['rateLimitExceeded', 'userRateLimitExceeded']);

/** The `reason` and `message` of a Google JSON error body (`{error: {errors: [{reason}], message}}`), if any. */
function googleErrorOf(text: string): { reason?: string; message?: string } {
  try {
    const error = (JSON.parse(text) as { error?: unknown }).error as
      | { errors?: { reason?: unknown }[]; message?: unknown }
      | undefined;
    const reason = error?.errors?.[0]?.reason;
    return {
      ...(typeof reason === 'string' ? { reason } : {}),
      ...(typeof error?.message === 'string' ? { message: error.message } : {}),
    };
  } catch {
    return {};
  }
}
