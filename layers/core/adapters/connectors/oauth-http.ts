import { createHash } from 'node:crypto';
import {
  CONNECTOR_LIMITS,
  ConnectionLostError,
  type ConnectorTokens,
  ProviderUnavailableError,
} from '../../domain/connector';
import { guardedFetch, OutboundRequestError } from '../net/guarded-fetch';
import type { OutboundPolicy } from '../net/outbound-policy';

/** `fetch` under the SSRF guard for provider endpoints: the policy's schemes and addresses, time and size caps. */
export type ProviderFetch = (input: string | URL, init?: RequestInit) => Promise<Response>;

export function providerFetch(
  policy: OutboundPolicy,
  /** The most body bytes (the 10 MiB by default; a file download's own cap). */
  maxBytes: number = CONNECTOR_LIMITS.maxResponseBytes,
): ProviderFetch {
  const fetch = guardedFetch(policy, { timeoutMs: CONNECTOR_LIMITS.requestTimeoutMs, maxBytes });
  return async (input, init) => {
    try {
      return await fetch(input, init);
    } catch (error) {
      // Refused by the SSRF guard, unreachable, too slow or too large: the attempt fails, the job is retried.
      if (error instanceof OutboundRequestError) throw new ProviderUnavailableError(error.message);
      throw error;
    }
  };
}

/** RFC 7636 S256. */
export const codeChallengeOf = (verifier: string) =>
  createHash('sha256').update(verifier).digest('base64url');

/** A token endpoint's answer, as RFC 6749 §5 shapes it: the tokens, or `error`. */
export interface TokenAnswer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/**
 * POSTs a token request (RFC 6749 §4.1.3, §6) to `url`, form-encoded as the
 * RFC says or as JSON where the provider wants it (Atlassian). A 5xx is the
 * provider down, so the attempt fails and is retried; any other answer is
 * read for the caller to sort (RFC 6749 §5: the tokens, or `error`).
 */
export async function postTokenRequest(
  fetch: ProviderFetch,
  provider: string,
  url: string,
  body: Record<string, string>,
  encoding: 'form' | 'json' = 'form',
): Promise<TokenAnswer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type':
        encoding === 'json' ? 'application/json' : 'application/x-www-form-urlencoded',
      Accept: 'application/json',
    },
    body: encoding === 'json' ? JSON.stringify(body) : new URLSearchParams(body).toString(),
  });
  if (response.status >= 500) {
    await response.arrayBuffer();
    throw new ProviderUnavailableError(`${provider}'s token endpoint answered ${response.status}`);
  }
  return { status: response.status, body: await readJsonObject(response) };
}

/**
 * Why a refresh (RFC 6749 §6) was refused, for providers that say only
 * `invalid_grant` (RFC 6749 §5.2) or 401 when the grant is revoked or
 * expired (Atlassian, Google): the source is `Connection failed` until
 * reconnected. Any other answer is the provider failing; the attempt is retried.
 */
export function refreshRefusal(provider: string, answer: TokenAnswer): Error {
  if (stringOr(answer.body.error, null) === 'invalid_grant' || answer.status === 401) {
    return new ConnectionLostError(
      `${provider} refused the refresh token (invalid_grant): access was revoked; reconnect the data source`,
    );
  }
  return new ProviderUnavailableError(`${provider}'s token endpoint answered ${answer.status}`);
}

export async function readJsonObject(response: Response): Promise<Record<string, unknown>> {
  const text = await response.text();
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

export const stringOr = (value: unknown, fallback: string | null): string | null =>
  typeof value === 'string' && value !== '' ? value : fallback;

/** A configured base address without its trailing slashes, to append paths to. */
export const trimSlash = (url: string) => url.replace(/\/+$/, '');

/**
 * The tokens of a successful token answer (RFC 6749 §5.1), as every provider
 * shapes them: a refresh answered without a refresh token keeps the one held
 * (Google), one answered with a new token replaces it (rotation: Atlassian,
 * Microsoft, Slack); `expires_in` seconds from now, or no expiry.
 */
export function issuedTokens(
  provider: string,
  body: Record<string, unknown>,
  previous: ConnectorTokens | null,
  now: Date,
): Omit<ConnectorTokens, 'site'> {
  const accessToken = stringOr(body.access_token, null);
  if (!accessToken)
    throw new ProviderUnavailableError(`${provider} answered without an access token`);
  const expiresIn =
    typeof body.expires_in === 'number' && Number.isFinite(body.expires_in)
      ? body.expires_in
      : null;
  return {
    access_token: accessToken,
    refresh_token: stringOr(body.refresh_token, previous?.refresh_token ?? null),
    expires_at:
      expiresIn === null ? null : new Date(now.getTime() + expiresIn * 1000).toISOString(),
    scope: stringOr(body.scope, previous?.scope ?? null),
  };
}

/** `Retry-After` in seconds (delta-seconds or an HTTP date); `null` when absent or unreadable. */
export function retryAfterSeconds(header: string | null, now: Date): number | null {
  if (header === null) return null;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return null;
  return Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}
