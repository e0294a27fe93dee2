import {
  CONNECTOR_LIMITS,
  ConnectionLostError,
  type ConnectorTokens,
  type ConnectorType,
  connectorTokenContext,
  NotConnectedError,
} from '../../domain/connector';
import type { DataSource } from '../../domain/data-source';
import type { Clock } from '../../ports/clock.port';
import type {
  AccessGrant,
  ConnectionStore,
  ConnectorApps,
  OAuthApp,
  ProviderOAuth,
} from '../../ports/connector.port';
import type { SecretSealer } from '../../ports/webhook-repository.port';

export interface GrantDependencies {
  readonly connections: Pick<ConnectionStore, 'sealedTokens' | 'replaceTokens'>;
  readonly secretSealer: SecretSealer;
  readonly connectorApps: ConnectorApps;
  readonly clock: Clock;
}

/**
 * A connected source's grant during a sync: the access token, renewed
 * before it expires and after a 401, the renewed tokens sealed again.
 * A refusal of the refresh token is a `ConnectionLostError`.
 */
export class ConnectorGrant implements AccessGrant {
  private constructor(
    private readonly deps: GrantDependencies,
    private readonly oauth: ProviderOAuth,
    private readonly app: OAuthApp,
    private readonly orgId: string,
    private readonly sourceId: string,
    private current: ConnectorTokens,
  ) {}

  static async open(
    deps: GrantDependencies,
    oauth: ProviderOAuth,
    orgId: string,
    source: DataSource,
  ): Promise<ConnectorGrant> {
    if (source.connection_status === 'Connection failed') {
      throw new NotConnectedError(
        'The connection failed (access was revoked at the provider): reconnect the data source',
      );
    }
    const sealed =
      source.connection_status === 'Connected'
        ? await deps.connections.sealedTokens(orgId, source.id)
        : null;
    if (!sealed) {
      throw new NotConnectedError(
        `The data source is not connected: sign in at GET /api/v1/data-sources/${source.id}/oauth/start`,
      );
    }
    const app = await deps.connectorApps.appFor(source.type as ConnectorType);
    if (!app)
      throw new NotConnectedError(`The ${source.type} app is not configured (docs/connectors.md)`);
    const tokens = JSON.parse(
      await deps.secretSealer.open(sealed, connectorTokenContext(orgId, source.id)),
    ) as ConnectorTokens;
    return new ConnectorGrant(deps, oauth, app, orgId, source.id, tokens);
  }

  get site(): ConnectorTokens['site'] {
    return this.current.site;
  }

  /** A token with at least the margin left, renewed first if not. */
  async accessToken(): Promise<string> {
    const expiresAt = this.current.expires_at ? Date.parse(this.current.expires_at) : null;
    const margin = CONNECTOR_LIMITS.refreshMarginSeconds * 1000;
    if (expiresAt !== null && expiresAt - this.deps.clock.now().getTime() < margin) {
      await this.refresh();
    }
    return this.current.access_token;
  }

  /** Renews the access token now (also after a 401); seals and stores the new tokens. */
  async refresh(): Promise<void> {
    this.current = await this.oauth.refresh(this.app, this.current);
    const sealed = await this.deps.secretSealer.seal(
      JSON.stringify(this.current),
      connectorTokenContext(this.orgId, this.sourceId),
    );
    if (!(await this.deps.connections.replaceTokens(this.orgId, this.sourceId, sealed))) {
      // Disconnected (or failed) while the sync ran: the grant is no longer ours to use.
      throw new ConnectionLostError('The data source was disconnected during the sync');
    }
  }
}
