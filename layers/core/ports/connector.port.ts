import type { ConnectorTokens, ConnectorType } from '../domain/connector';
import type { DataSource } from '../domain/data-source';
import type { DomainEvent } from '../domain/events';

/** A provider app's credentials (settings locally, Secrets Manager in the cloud). */
export interface OAuthApp {
  readonly clientId: string;
  readonly clientSecret: string;
}

/** Where each provider's app credentials come from; `null` when that app is not configured. */
export interface ConnectorApps {
  appFor(type: ConnectorType): Promise<OAuthApp | null>;
}

/** What a signed `state` asserts: one sign-in, for one data source of one organization, by one caller. */
export interface OAuthStateClaims {
  readonly flowId: string;
  readonly orgId: string;
  readonly dataSourceId: string;
  /** The API key's or the user's id that started it. */
  readonly principalId: string;
  /** Epoch seconds. */
  readonly expiresAt: number;
}

/** Signs and checks `state` values (HMAC under the session signing secret, its own audience). */
export interface OAuthStateSigner {
  sign(claims: OAuthStateClaims): Promise<string>;
  /** The claims, or `null` when forged, altered, expired or not a connector state. */
  verify(state: string, now: Date): Promise<OAuthStateClaims | null>;
}

/** A sign-in waiting for the provider's redirect: kept on the data source's item until taken once. */
export interface PendingConnection {
  readonly flow_id: string;
  readonly code_verifier: string;
  readonly principal_id: string;
  /** SHA-256 of the secret in the starting browser's flow cookie (absent on flows stored before it: they fail). */
  readonly browser_hash: string;
  /** Epoch seconds. */
  readonly expires_at: number;
}

/**
 * A connector source's sign-in and grant, stored on its data source item
 * (never part of the entity the API shows): the pending flow, the sealed
 * tokens, the connection status, and the sync cursor. Every call is
 * scoped by organization.
 */
export interface ConnectionStore {
  /** Replaces any pending sign-in of the source; `false` when the source does not exist. */
  beginFlow(orgId: string, id: string, flow: PendingConnection): Promise<boolean>;
  /** The pending sign-in `flowId`, removed so that it is finished once; `null` when unknown, taken or expired. */
  takeFlow(
    orgId: string,
    id: string,
    flowId: string,
    nowSeconds: number,
  ): Promise<PendingConnection | null>;
  /** Stores the sealed grant and makes the source `Connected` (the spec's transition); the sync cursor restarts. */
  connect(
    orgId: string,
    id: string,
    sealedTokens: string,
    events: readonly DomainEvent[],
  ): Promise<DataSource | null>;
  sealedTokens(orgId: string, id: string): Promise<string | null>;
  /** Replaces the grant after a refresh, while the source is still `Connected`. */
  replaceTokens(orgId: string, id: string, sealedTokens: string): Promise<boolean>;
  /** `Connection failed` with the reason (access revoked at the provider), and the events, in one write. */
  markFailed(
    orgId: string,
    id: string,
    reason: string,
    events: readonly DomainEvent[],
  ): Promise<boolean>;
  /** Deletes the grant and makes the source `Disconnected`; returns what was stored, to revoke it. */
  disconnect(
    orgId: string,
    id: string,
  ): Promise<{ readonly source: DataSource; readonly sealedTokens: string | null } | null>;
}

/** The result of asking the provider to revoke a grant. */
export type Revocation =
  | { readonly revoked: true }
  | { readonly revoked: false; readonly reason: string };

/** What a provider's authorization URL carries besides the app: the signed state, PKCE and where to come back. */
export interface AuthorizationRequest {
  readonly state: string;
  readonly codeChallenge: string;
  readonly redirectUri: string;
}

/** What the callback brings to exchange for tokens: the code, the PKCE verifier and the same redirect URI. */
export interface CodeExchange {
  readonly code: string;
  readonly codeVerifier: string;
  readonly redirectUri: string;
}

/** One provider's OAuth 2.0 authorization code flow with PKCE (RFC 6749, 7636, 7009). */
export interface ProviderOAuth {
  readonly scopes: readonly string[];
  authorizationUrl(app: OAuthApp, request: AuthorizationRequest): string;
  /** Exchanges the code; also finds what the grant reaches (`site`) for the source's config. */
  exchangeCode(app: OAuthApp, request: CodeExchange, source: DataSource): Promise<ConnectorTokens>;
  /** @throws ConnectionLostError on `invalid_grant`. */
  refresh(app: OAuthApp, tokens: ConnectorTokens): Promise<ConnectorTokens>;
  revoke(app: OAuthApp, tokens: ConnectorTokens): Promise<Revocation>;
}

/** The providers' OAuth clients by connector type; a type without one cannot be connected yet. */
export type ProviderOAuthClients = Partial<Record<ConnectorType, ProviderOAuth>>;

/** A connected source's grant while a sync uses it: a fresh access token, renewed on demand. */
export interface AccessGrant {
  readonly site: ConnectorTokens['site'];
  accessToken(): Promise<string>;
  /** @throws ConnectionLostError when the provider refuses the refresh token. */
  refresh(): Promise<void>;
}
