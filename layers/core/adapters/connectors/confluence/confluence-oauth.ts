import {
  ConnectionCallbackError,
  ConnectionLostError,
  type ConnectorTokens,
} from '../../../domain/connector';
import type { DataSource } from '../../../domain/data-source';
import type { Clock } from '../../../ports/clock.port';
import type {
  AuthorizationRequest,
  CodeExchange,
  OAuthApp,
  ProviderOAuth,
  Revocation,
} from '../../../ports/connector.port';
import {
  issuedTokens,
  type ProviderFetch,
  postTokenRequest,
  refreshRefusal,
  stringOr,
  type TokenAnswer,
  trimSlash,
} from '../oauth-http';

/** Where Atlassian's endpoints are (settings may point them at a stand-in for tests). */
export interface AtlassianEndpoints {
  /** @default https://auth.atlassian.com */
  readonly authBaseUrl: string;
  /** @default https://api.atlassian.com */
  readonly apiBaseUrl: string;
}

export const ATLASSIAN_ENDPOINTS: AtlassianEndpoints = {
  authBaseUrl: 'https://auth.atlassian.com',
  apiBaseUrl: 'https://api.atlassian.com',
};

/**
 * Confluence's classic scopes for reading (docs/connectors.md): content with
 * bodies, space summaries, CQL search; `offline_access` for a refresh token.
 */
export const CONFLUENCE_SCOPES = [
  'read:confluence-content.all',
  'read:confluence-space.summary',
  'search:confluence',
  'offline_access',
] as const;

/**
 * Atlassian OAuth 2.0 (3LO) for Confluence Cloud: the authorization code flow
 * at auth.atlassian.com (PKCE sent as well), token requests as JSON as
 * Atlassian documents them, rotating refresh tokens, and the grant's site
 * found through `accessible-resources` by the source's `base_url`.
 */
export class ConfluenceOAuth implements ProviderOAuth {
  readonly scopes = CONFLUENCE_SCOPES;

  constructor(
    private readonly fetch: ProviderFetch,
    private readonly clock: Clock,
    private readonly endpoints: AtlassianEndpoints = ATLASSIAN_ENDPOINTS,
  ) {}

  authorizationUrl(app: OAuthApp, request: AuthorizationRequest): string {
    const url = new URL(`${trimSlash(this.endpoints.authBaseUrl)}/authorize`);
    url.search = new URLSearchParams({
      audience: 'api.atlassian.com',
      client_id: app.clientId,
      scope: this.scopes.join(' '),
      redirect_uri: request.redirectUri,
      state: request.state,
      response_type: 'code',
      prompt: 'consent',
      code_challenge: request.codeChallenge,
      code_challenge_method: 'S256',
    }).toString();
    return url.toString();
  }

  async exchangeCode(
    app: OAuthApp,
    request: CodeExchange,
    source: DataSource,
  ): Promise<ConnectorTokens> {
    const answer = await this.tokenRequest({
      grant_type: 'authorization_code',
      client_id: app.clientId,
      client_secret: app.clientSecret,
      code: request.code,
      redirect_uri: request.redirectUri,
      code_verifier: request.codeVerifier,
    });
    if (answer.status !== 200) {
      throw new ConnectionCallbackError(
        `Atlassian refused the authorization code (${stringOr(answer.body.error, String(answer.status))})`,
      );
    }
    const tokens = this.tokensOf(answer.body, null);
    const site = await this.siteFor(tokens.access_token, String(source.config.base_url ?? ''));
    return { ...tokens, site };
  }

  async refresh(app: OAuthApp, tokens: ConnectorTokens): Promise<ConnectorTokens> {
    if (!tokens.refresh_token) {
      throw new ConnectionLostError('The access token expired and Atlassian gave no refresh token');
    }
    const answer = await this.tokenRequest({
      grant_type: 'refresh_token',
      client_id: app.clientId,
      client_secret: app.clientSecret,
      refresh_token: tokens.refresh_token,
    });
    if (answer.status === 200) return { ...this.tokensOf(answer.body, tokens), site: tokens.site };
    // Atlassian answers 403 (sometimes 400/401) with invalid_grant for a revoked or unknown refresh token.
    throw refreshRefusal('Atlassian', answer);
  }

  /**
   * RFC 7009 at `/oauth/revoke`. Atlassian documents no per-token
   * revocation; when its endpoint does not answer 200 the disconnect still
   * deletes the tokens and says that access must be removed by the user at
   * id.atlassian.com (Connected apps).
   */
  async revoke(app: OAuthApp, tokens: ConnectorTokens): Promise<Revocation> {
    const token = tokens.refresh_token ?? tokens.access_token;
    let response: Response;
    try {
      response = await this.fetch(`${trimSlash(this.endpoints.authBaseUrl)}/oauth/revoke`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          token,
          token_type_hint: tokens.refresh_token ? 'refresh_token' : 'access_token',
          client_id: app.clientId,
          client_secret: app.clientSecret,
        }).toString(),
      });
    } catch (error) {
      return { revoked: false, reason: (error as Error).message };
    }
    await response.arrayBuffer();
    if (response.status === 200) return { revoked: true };
    return {
      revoked: false,
      reason: `Atlassian's revocation endpoint answered ${response.status}; remove the app under Connected apps at https://id.atlassian.com/manage-profile/apps`,
    };
  }

  private tokenRequest(body: Record<string, string>): Promise<TokenAnswer> {
    const url = `${trimSlash(this.endpoints.authBaseUrl)}/oauth/token`;
    return postTokenRequest(this.fetch, 'Atlassian', url, body, 'json');
  }

  private tokensOf(
    body: Record<string, unknown>,
    previous: ConnectorTokens | null,
  ): Omit<ConnectorTokens, 'site'> {
    return issuedTokens('Atlassian', body, previous, this.clock.now());
  }

  /** The site the grant reaches whose address is the source's `base_url`. */
  private async siteFor(
    accessToken: string,
    baseUrl: string,
  ): Promise<{ id: string; url: string }> {
    const response = await this.fetch(
      `${trimSlash(this.endpoints.apiBaseUrl)}/oauth/token/accessible-resources`,
      { headers: { Authorization: `Bearer ${accessToken}`, Accept: 'application/json' } },
    );
    const text = await response.text();
    if (response.status !== 200) {
      throw new ConnectionCallbackError(
        `Atlassian's accessible-resources answered ${response.status}`,
      );
    }
    let resources: unknown;
    try {
      resources = JSON.parse(text);
    } catch {
      resources = null;
    }
    const wanted = URL.canParse(baseUrl) ? new URL(baseUrl).origin : '';
    const match = (Array.isArray(resources) ? resources : []).find(
      (resource: { id?: unknown; url?: unknown }) =>
        typeof resource?.id === 'string' &&
        typeof resource.url === 'string' &&
        URL.canParse(resource.url) &&
        new URL(resource.url).origin === wanted,
    ) as { id: string; url: string } | undefined;
    if (!match) {
      throw new ConnectionCallbackError(
        `The Atlassian account that signed in has no access to ${wanted || 'the configured base_url'}`,
      );
    }
    return { id: match.id, url: trimSlash(match.url) };
  }
}
