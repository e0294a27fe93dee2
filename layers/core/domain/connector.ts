import type { DataSourceType } from './data-source';
import { InvalidRequestError } from './errors';

/** The data source types that read a third party through its sign-in. */
export type ConnectorType = Extract<
  DataSourceType,
  'confluence' | 'slack' | 'google_drive' | 'sharepoint'
>;

/** The spec's "OAuth for data connectors" and P145–P150's bounds. */
export const CONNECTOR_LIMITS = {
  /** A sign-in started must come back within this long (the signed `state` and the stored flow expire). */
  flowSeconds: 600,
  /** An access token is renewed when it has less than this left (the spec's tokens live 1 hour). */
  refreshMarginSeconds: 300,
  /** The longest `Retry-After` honoured by waiting; longer ones end the attempt and the job is retried. */
  maxRetryAfterSeconds: 60,
  /** 429/503 answers waited out per request before the attempt gives up. */
  maxRateLimitRetries: 5,
  /** The most bytes one provider response may have (a page body, a listing page). */
  maxResponseBytes: 10 * 1024 * 1024,
  /** The most items one source's inventory may list; more fails the sync with the reason. */
  maxItems: 50_000,
  /** One provider request's deadline (DNS, connect, TLS, headers and body). */
  requestTimeoutMs: 30_000,
} as const;

/** What the service keeps of a provider grant, sealed on the data source's item. */
export interface ConnectorTokens {
  readonly access_token: string;
  /** The spec: the refresh token has no expiry and renews the access token. */
  readonly refresh_token: string | null;
  /** When the access token expires (ISO 8601); `null` when the provider did not say. */
  readonly expires_at: string | null;
  readonly scope: string | null;
  /** What the grant reaches, as the provider names it (Confluence: the site's cloud id and address). */
  readonly site: { readonly id: string; readonly url: string } | null;
}

/** The sealed-token encryption context: organization and data source, so a moved ciphertext does not open. */
export function connectorTokenContext(orgId: string, dataSourceId: string): Record<string, string> {
  return { org_id: orgId, data_source_id: dataSourceId, purpose: 'connector-oauth-tokens' };
}

/**
 * The provider refused the grant (`invalid_grant`, or 401 after a refresh):
 * access was revoked there. The source becomes `Connection failed` until it
 * is reconnected (the spec's states). The message is safe to show and log:
 * it never carries a token.
 */
export class ConnectionLostError extends Error {
  override readonly name = 'ConnectionLostError';
}

/** A connector source whose sign-in was never completed, or was disconnected: nothing to read with. */
export class NotConnectedError extends Error {
  override readonly name = 'NotConnectedError';
}

/** A provider that stays unavailable, or keeps answering 429 beyond the waits allowed: the job is retried later. */
export class ProviderUnavailableError extends Error {
  override readonly name = 'ProviderUnavailableError';
}

/**
 * The provider's redirect back could not complete a sign-in (unknown, used
 * or expired state; the provider's refusal; a grant that does not reach the
 * configured site). Shown as the "Connection failed" page (400); the reason
 * is safe to show: it never carries a code or token.
 */
export class ConnectionCallbackError extends InvalidRequestError {}
