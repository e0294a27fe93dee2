import {
  ConnectionCallbackError,
  ConnectionLostError,
  type ConnectorTokens,
  ProviderUnavailableError,
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
  readJsonObject,
  stringOr,
  type TokenAnswer,
  trimSlash,
} from '../oauth-http';
import { graphError, siteLookupUrl } from './graph-urls';

/** Where Microsoft's endpoints are (settings may point them at a stand-in for tests). */
export interface MicrosoftEndpoints {
  /**
   * The identity platform's authority, tenant included (P183).
   * @default https://login.microsoftonline.com/organizations
   */
  readonly authBaseUrl: string;
  /** @default https://graph.microsoft.com/v1.0 */
  readonly graphBaseUrl: string;
}

export const MICROSOFT_ENDPOINTS: MicrosoftEndpoints = {
  authBaseUrl: 'https://login.microsoftonline.com/organizations',
  graphBaseUrl: 'https://graph.microsoft.com/v1.0',
};

/**
 * Delegated Microsoft Graph permissions for reading (docs/connectors.md):
 * files the user can open, sites the user can open; `offline_access` for a
 * refresh token. Neither needs an administrator's consent.
 */
export const SHAREPOINT_SCOPES = ['offline_access', 'Files.Read.All', 'Sites.Read.All'] as const;

/** Where people remove an app's access themselves (Microsoft has no per-app token revocation, P183). */
export const MICROSOFT_APPS_PAGE = 'https://myapps.microsoft.com';

/** Token errors that mean the person must sign in again (revoked, expired, password changed, MFA, consent). */
const SIGN_IN_AGAIN = new Set(['invalid_grant', 'interaction_required', 'consent_required']);

/**
 * The Microsoft identity platform (v2.0 endpoints) for SharePoint and
 * OneDrive (P183): the authorization code flow with PKCE for a confidential
 * web app, form-encoded token requests, refresh tokens that are replaced at
 * each renewal; the source's `site_url` resolved through Graph at sign-in so
 * a site the account cannot open fails the sign-in with the reason.
 */
export class MicrosoftOAuth implements ProviderOAuth {
  readonly scopes = SHAREPOINT_SCOPES;

  constructor(
    private readonly fetch: ProviderFetch,
    private readonly clock: Clock,
    private readonly endpoints: MicrosoftEndpoints = MICROSOFT_ENDPOINTS,
  ) {}

  authorizationUrl(app: OAuthApp, request: AuthorizationRequest): string {
    const url = new URL(`${trimSlash(this.endpoints.authBaseUrl)}/oauth2/v2.0/authorize`);
    url.search = new URLSearchParams({
      client_id: app.clientId,
      response_type: 'code',
      redirect_uri: request.redirectUri,
      response_mode: 'query',
      scope: this.scopes.join(' '),
      state: request.state,
      // The person chooses the work account that reaches the site.
      prompt: 'select_account',
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
    const answer = await this.tokenRequest(app, {
      grant_type: 'authorization_code',
      code: request.code,
      redirect_uri: request.redirectUri,
      code_verifier: request.codeVerifier,
    });
    if (answer.status !== 200) {
      throw new ConnectionCallbackError(
        `Microsoft refused the authorization code (${stringOr(answer.body.error, String(answer.status))})`,
      );
    }
    const tokens = this.tokensOf(answer.body, null);
    const site = await this.siteFor(tokens.access_token, String(source.config.site_url ?? ''));
    return { ...tokens, site };
  }

  async refresh(app: OAuthApp, tokens: ConnectorTokens): Promise<ConnectorTokens> {
    if (!tokens.refresh_token) {
      throw new ConnectionLostError('The access token expired and Microsoft gave no refresh token');
    }
    const answer = await this.tokenRequest(app, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
    });
    if (answer.status === 200) return { ...this.tokensOf(answer.body, tokens), site: tokens.site };
    const error = stringOr(answer.body.error, null) ?? '';
    if (SIGN_IN_AGAIN.has(error) || answer.status === 401) {
      throw new ConnectionLostError(
        `Microsoft refused the refresh token (${error || answer.status}): access was revoked or expired; reconnect the data source`,
      );
    }
    if (error === 'invalid_client' || error === 'unauthorized_client') {
      throw new ProviderUnavailableError(
        `Microsoft refused the app's credentials (${error}): the operator renews the client secret (docs/connectors.md)`,
      );
    }
    throw new ProviderUnavailableError(`Microsoft's token endpoint answered ${answer.status}`);
  }

  /**
   * P183: the identity platform has no RFC 7009 endpoint, and Graph's
   * `revokeSignInSessions` would end every app's sessions of that person
   * (and needs an administrator's permission). The tokens are deleted; the
   * answer says where the person removes the app's access.
   */
  async revoke(): Promise<Revocation> {
    return {
      revoked: false,
      reason: `Microsoft offers no revocation of one app's tokens: the tokens were deleted here; remove the app's access at ${MICROSOFT_APPS_PAGE} (or an administrator does, under Enterprise applications in the Microsoft Entra admin center)`,
    };
  }

  private tokenRequest(app: OAuthApp, form: Record<string, string>): Promise<TokenAnswer> {
    const url = `${trimSlash(this.endpoints.authBaseUrl)}/oauth2/v2.0/token`;
    return postTokenRequest(this.fetch, 'Microsoft', url, {
      client_id: app.clientId,
      client_secret: app.clientSecret,
      scope: this.scopes.join(' '),
      ...form,
    });
  }

  private tokensOf(
    body: Record<string, unknown>,
    previous: ConnectorTokens | null,
  ): Omit<ConnectorTokens, 'site'> {
    // The identity platform's v1 endpoints sent `expires_in` as text: both forms are read.
    return issuedTokens(
      'Microsoft',
      { ...body, expires_in: Number(body.expires_in) },
      previous,
      this.clock.now(),
    );
  }

  /** P183: the site at `site_url` as Graph knows it, for the account that signed in. */
  private async siteFor(
    accessToken: string,
    siteUrl: string,
  ): Promise<{ id: string; url: string }> {
    const lookup = siteLookupUrl(this.endpoints.graphBaseUrl, siteUrl);
    if (!lookup) throw new ConnectionCallbackError('The data source has no valid site_url');
    const response = await this.fetch(lookup, {
      headers: { Authorization: `Bearer ${accessToken}`, Accept: 'application/json' },
    });
    const body = await readJsonObject(response);
    if (response.status === 404 || response.status === 403) {
      throw new ConnectionCallbackError(
        `The Microsoft account that signed in cannot open the site ${siteUrl} (${graphError(body) ?? response.status})`,
      );
    }
    if (response.status !== 200 || typeof body.id !== 'string') {
      throw new ProviderUnavailableError(
        `Microsoft Graph answered ${response.status} for the site`,
      );
    }
    return { id: body.id, url: typeof body.webUrl === 'string' ? body.webUrl : siteUrl };
  }
}
