import { createHash, randomBytes } from 'node:crypto';
import { isSameBrowser, newBrowserBinding } from '../../domain/browser-binding';
import {
  CONNECTOR_LIMITS,
  ConnectionCallbackError,
  type ConnectorTokens,
  type ConnectorType,
  connectorTokenContext,
} from '../../domain/connector';
import { type DataSource, isConnectorType } from '../../domain/data-source';
import { ConflictError, InvalidRequestError, NotFoundError } from '../../domain/errors';
import { isId } from '../../domain/ids';
import type { Clock } from '../../ports/clock.port';
import type {
  ConnectionStore,
  ConnectorApps,
  OAuthApp,
  OAuthStateSigner,
  ProviderOAuth,
  ProviderOAuthClients,
} from '../../ports/connector.port';
import type { DataSourceRepository } from '../../ports/data-source-repository.port';
import type { SecretSealer } from '../../ports/webhook-repository.port';

export interface ConnectionDependencies {
  readonly clock: Clock;
  readonly dataSources: Pick<DataSourceRepository, 'get'>;
  readonly connections: ConnectionStore;
  readonly connectorApps: ConnectorApps;
  readonly oauthClients: ProviderOAuthClients;
  readonly oauthState: OAuthStateSigner;
  readonly secretSealer: SecretSealer;
}

/** Where every provider sends the browser back (registered as the app's redirect URI). */
export const OAUTH_CALLBACK_PATH = '/api/oauth/callback';

/** What each provider's app is called in messages and docs/connectors.md. */
const PROVIDER_NAMES: Record<ConnectorType, string> = {
  confluence: 'Confluence (Atlassian)',
  slack: 'Slack',
  google_drive: 'Google Drive',
  sharepoint: 'SharePoint (Microsoft)',
};

const randomToken = () => randomBytes(32).toString('base64url');
const sha256 = (value: string) => createHash('sha256').update(value).digest('base64url');

interface ConnectorContext {
  readonly source: DataSource;
  readonly type: ConnectorType;
  readonly oauth: ProviderOAuth;
  readonly app: OAuthApp;
}

/** The source, its provider's client and app; a clear 4xx for what cannot connect. */
async function connectorOf(
  deps: ConnectionDependencies,
  orgId: string,
  id: string,
): Promise<ConnectorContext> {
  const source = await deps.dataSources.get(orgId, id);
  // Another organization's source answers as a missing one.
  if (!source) throw new NotFoundError(`Data source ${id} not found`);
  if (!isConnectorType(source.type)) {
    throw new InvalidRequestError(
      `A ${source.type} data source has no provider sign-in; only confluence, slack, google_drive and sharepoint do`,
    );
  }
  const type = source.type as ConnectorType;
  const oauth = deps.oauthClients[type];
  if (!oauth) {
    throw new ConflictError(`Connecting ${type} data sources is not available yet`, {
      reason: 'connector_unavailable',
    });
  }
  const app = await deps.connectorApps.appFor(type);
  if (!app) {
    throw new ConflictError(
      `The ${PROVIDER_NAMES[type]} app is not configured on this service: the operator registers it and sets its client id and secret (docs/connectors.md)`,
      { reason: 'connector_app_not_configured' },
    );
  }
  return { source, type, oauth, app };
}

export interface StartedConnection {
  readonly authorization_url: string;
  readonly expires_at: string;
}

/** Where to send the browser, and the secret it keeps in a cookie so only it can finish (P215). */
export interface StartedSignIn {
  readonly connection: StartedConnection;
  readonly browserSecret: string;
}

/**
 * `oauth/start`: a fresh PKCE verifier kept on the source as its
 * one pending sign-in, and a signed `state` binding organization, data
 * source and caller, both expiring after 10 minutes; returns the
 * provider's authorization URL. The flow keeps the hash of a secret only
 * the starting browser holds (P215), as SSO's does (P90).
 */
export async function startConnection(
  deps: ConnectionDependencies,
  input: {
    readonly orgId: string;
    readonly dataSourceId: string;
    readonly principalId: string;
    readonly baseUrl: string;
  },
): Promise<StartedSignIn> {
  const { oauth, app } = await connectorOf(deps, input.orgId, input.dataSourceId);
  const nowSeconds = Math.floor(deps.clock.now().getTime() / 1000);
  const expiresAt = nowSeconds + CONNECTOR_LIMITS.flowSeconds;
  const flowId = randomToken();
  const codeVerifier = randomToken();
  const browser = newBrowserBinding();
  const begun = await deps.connections.beginFlow(input.orgId, input.dataSourceId, {
    flow_id: flowId,
    code_verifier: codeVerifier,
    principal_id: input.principalId,
    browser_hash: browser.hash,
    expires_at: expiresAt,
  });
  if (!begun) throw new NotFoundError(`Data source ${input.dataSourceId} not found`);
  const state = await deps.oauthState.sign({
    flowId,
    orgId: input.orgId,
    dataSourceId: input.dataSourceId,
    principalId: input.principalId,
    expiresAt,
  });
  return {
    connection: {
      authorization_url: oauth.authorizationUrl(app, {
        state,
        codeChallenge: sha256(codeVerifier),
        redirectUri: `${input.baseUrl}${OAUTH_CALLBACK_PATH}`,
      }),
      expires_at: new Date(expiresAt * 1000).toISOString(),
    },
    browserSecret: browser.secret,
  };
}

/** What a state that does not verify, and a callback in another browser, both show (P215: one answer). */
const UNKNOWN_STATE = 'Unknown, altered or expired sign-in state';

/**
 * Callback: the state must verify (signature, expiry, audience) and name
 * the source's one pending sign-in, which is taken once and must belong to
 * this browser (P215: its flow cookie; a callback in any other browser burns
 * the flow and fails as a tampered state does, before any code is
 * exchanged); then the code is exchanged with the PKCE verifier, the tokens
 * sealed under the organization and data source, and the source
 * becomes `Connected`.
 */
export async function completeConnection(
  deps: ConnectionDependencies,
  input: {
    readonly state: string | undefined;
    readonly code: string | undefined;
    readonly error: string | undefined;
    /** P215: the flow cookie the browser brought, if any. */
    readonly browserSecret: string | undefined;
    readonly baseUrl: string;
  },
): Promise<DataSource> {
  if (!input.state) throw new ConnectionCallbackError('The provider came back without a state');
  const claims = await deps.oauthState.verify(input.state, deps.clock.now());
  if (!claims || !isId('dataSource', claims.dataSourceId)) {
    throw new ConnectionCallbackError(UNKNOWN_STATE);
  }
  const nowSeconds = Math.floor(deps.clock.now().getTime() / 1000);
  const flow = await deps.connections.takeFlow(
    claims.orgId,
    claims.dataSourceId,
    claims.flowId,
    nowSeconds,
  );
  if (!flow || flow.principal_id !== claims.principalId) {
    throw new ConnectionCallbackError('This sign-in was already used, replaced or has expired');
  }
  if (!isSameBrowser(input.browserSecret, flow.browser_hash)) {
    // The page says what a tampered state says; the log tells them apart.
    throw new ConnectionCallbackError(UNKNOWN_STATE, { reason: 'other_browser' });
  }
  if (input.error !== undefined) {
    throw new ConnectionCallbackError(
      `The provider did not grant access (${input.error.slice(0, 100)})`,
    );
  }
  if (!input.code) throw new ConnectionCallbackError('The provider came back without a code');
  let context: ConnectorContext;
  try {
    context = await connectorOf(deps, claims.orgId, claims.dataSourceId);
  } catch (error) {
    throw new ConnectionCallbackError((error as Error).message);
  }
  const tokens: ConnectorTokens = await context.oauth.exchangeCode(
    context.app,
    {
      code: input.code,
      codeVerifier: flow.code_verifier,
      redirectUri: `${input.baseUrl}${OAUTH_CALLBACK_PATH}`,
    },
    context.source,
  );
  const sealed = await deps.secretSealer.seal(
    JSON.stringify(tokens),
    connectorTokenContext(claims.orgId, claims.dataSourceId),
  );
  const connected = await deps.connections.connect(claims.orgId, claims.dataSourceId, sealed, []);
  if (!connected) throw new ConnectionCallbackError('The data source was deleted meanwhile');
  return connected;
}

export interface Disconnection {
  readonly data_source: DataSource;
  /** Whether the provider confirmed the revocation; the tokens are deleted either way. */
  readonly revoked_at_provider: boolean;
  readonly revocation_error: string | null;
}

/**
 * Disconnect: the tokens are deleted and the source `Disconnected` in one
 * write; then the grant is revoked at the provider (a provider that
 * refuses or cannot be reached is reported, the tokens stay deleted).
 */
export async function disconnect(
  deps: ConnectionDependencies,
  orgId: string,
  id: string,
): Promise<Disconnection> {
  const source = await deps.dataSources.get(orgId, id);
  if (!source) throw new NotFoundError(`Data source ${id} not found`);
  if (!isConnectorType(source.type)) {
    throw new InvalidRequestError(`A ${source.type} data source has no connection to remove`);
  }
  const removed = await deps.connections.disconnect(orgId, id);
  if (!removed) throw new NotFoundError(`Data source ${id} not found`);
  const type = source.type as ConnectorType;
  if (!removed.sealedTokens) {
    return { data_source: removed.source, revoked_at_provider: false, revocation_error: null };
  }
  const oauth = deps.oauthClients[type];
  const app = await deps.connectorApps.appFor(type);
  if (!oauth || !app) {
    return {
      data_source: removed.source,
      revoked_at_provider: false,
      revocation_error: `The ${PROVIDER_NAMES[type]} app is not configured: revoke access at the provider`,
    };
  }
  const tokens = JSON.parse(
    await deps.secretSealer.open(removed.sealedTokens, connectorTokenContext(orgId, id)),
  ) as ConnectorTokens;
  const revocation = await oauth.revoke(app, tokens);
  return {
    data_source: removed.source,
    revoked_at_provider: revocation.revoked,
    revocation_error: revocation.revoked ? null : revocation.reason,
  };
}

/**
 * Revokes the grant of a deleted connector source at its provider
 * (the sync worker, with the purge of its chunks). Best effort: the tokens
 * are already gone with the source; the outcome is returned for the log.
 */
export async function revokeDeletedGrant(
  deps: Pick<ConnectionDependencies, 'oauthClients' | 'connectorApps' | 'secretSealer'>,
  orgId: string,
  dataSourceId: string,
  grant: { readonly type: ConnectorType; readonly sealed_tokens: string },
): Promise<{ revoked: boolean; reason: string | null }> {
  const oauth = deps.oauthClients[grant.type];
  const app = await deps.connectorApps.appFor(grant.type);
  if (!oauth || !app) {
    return { revoked: false, reason: `the ${grant.type} app is not configured` };
  }
  const tokens = JSON.parse(
    await deps.secretSealer.open(grant.sealed_tokens, connectorTokenContext(orgId, dataSourceId)),
  ) as ConnectorTokens;
  const revocation = await oauth.revoke(app, tokens);
  return revocation.revoked
    ? { revoked: true, reason: null }
    : { revoked: false, reason: revocation.reason };
}
