import {
  ConnectionCallbackError,
  ConnectionLostError,
  type ConnectorTokens,
} from '../../../domain/connector';
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
  refreshRefusal,
  stringOr,
  type TokenAnswer,
  trimSlash,
} from '../oauth-http';

/** Where Google's endpoints are (settings may point them at a stand-in for tests). */
export interface GoogleEndpoints {
  /** The consent screen. @default https://accounts.google.com */
  readonly authBaseUrl: string;
  /** Token and revocation endpoints. @default https://oauth2.googleapis.com */
  readonly tokenBaseUrl: string;
  /** The Drive API. @default https://www.googleapis.com */
  readonly apiBaseUrl: string;
}

export const GOOGLE_ENDPOINTS: GoogleEndpoints = {
  authBaseUrl: 'https://accounts.google.com',
  tokenBaseUrl: 'https://oauth2.googleapis.com',
  apiBaseUrl: 'https://www.googleapis.com',
};

/** read-only access to the files the account can open (docs/connectors.md). */
export const GOOGLE_DRIVE_SCOPES = ['https://www.googleapis.com/auth/drive.readonly'] as const;

/**
 * Google OAuth 2.0 for Google Drive (web server flow): the authorization
 * code with PKCE, `access_type=offline` and `prompt=consent` so that every
 * sign-in returns a refresh token, form-encoded token requests, refreshes
 * that keep the refresh token (Google does not rotate it), and revocation at
 * `oauth2.googleapis.com/revoke` (revoking the refresh token ends the grant).
 * Google's granular consent lets a person untick the Drive permission: a
 * grant without `drive.readonly` fails the sign-in with the reason.
 */
export class GoogleDriveOAuth implements ProviderOAuth {
  readonly scopes = GOOGLE_DRIVE_SCOPES;

  constructor(
    private readonly fetch: ProviderFetch,
    private readonly clock: Clock,
    private readonly endpoints: GoogleEndpoints = GOOGLE_ENDPOINTS,
  ) {}

  authorizationUrl(app: OAuthApp, request: AuthorizationRequest): string {
    const url = new URL(`${trimSlash(this.endpoints.authBaseUrl)}/o/oauth2/v2/auth`);
    url.search = new URLSearchParams({
      client_id: app.clientId,
      redirect_uri: request.redirectUri,
      response_type: 'code',
      scope: this.scopes.join(' '),
      access_type: 'offline',
      prompt: 'consent',
      state: request.state,
      code_challenge: request.codeChallenge,
      code_challenge_method: 'S256',
    }).toString();
    return url.toString();
  }

  async exchangeCode(app: OAuthApp, request: CodeExchange): Promise<ConnectorTokens> {
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
        `Google refused the authorization code (${stringOr(answer.body.error, String(answer.status))})`,
      );
    }
    const tokens = this.tokensOf(answer.body, null);
    const granted = (tokens.scope ?? '').split(/\s+/);
    if (!this.scopes.every((scope) => granted.includes(scope))) {
      throw new ConnectionCallbackError(
        'The Google account did not grant read access to Drive (drive.readonly): sign in again and allow it',
      );
    }
    if (!tokens.refresh_token) {
      throw new ConnectionCallbackError('Google gave no refresh token: sign in again');
    }
    return { ...tokens, site: null };
  }

  async refresh(app: OAuthApp, tokens: ConnectorTokens): Promise<ConnectorTokens> {
    if (!tokens.refresh_token) {
      throw new ConnectionLostError('The access token expired and Google gave no refresh token');
    }
    const answer = await this.tokenRequest({
      grant_type: 'refresh_token',
      client_id: app.clientId,
      client_secret: app.clientSecret,
      refresh_token: tokens.refresh_token,
    });
    if (answer.status === 200) return { ...this.tokensOf(answer.body, tokens), site: tokens.site };
    // Google answers 400 invalid_grant ("Token has been expired or revoked.") for a revoked grant.
    throw refreshRefusal('Google', answer);
  }

  /** `POST https://oauth2.googleapis.com/revoke` with the refresh token (it ends the whole grant). */
  async revoke(_app: OAuthApp, tokens: ConnectorTokens): Promise<Revocation> {
    const token = tokens.refresh_token ?? tokens.access_token;
    let response: Response;
    try {
      response = await this.fetch(`${trimSlash(this.endpoints.tokenBaseUrl)}/revoke`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token }).toString(),
      });
    } catch (error) {
      return { revoked: false, reason: (error as Error).message };
    }
    const body = await readJsonObject(response);
    if (response.status === 200) return { revoked: true };
    return {
      revoked: false,
      reason: `Google's revocation endpoint answered ${response.status} (${stringOr(body.error, 'no reason')}); remove the app at https://myaccount.google.com/connections`,
    };
  }

  private tokenRequest(body: Record<string, string>): Promise<TokenAnswer> {
    const url = `${trimSlash(this.endpoints.tokenBaseUrl)}/token`;
    return postTokenRequest(this.fetch, 'Google', url, body);
  }

  private tokensOf(
    body: Record<string, unknown>,
    previous: ConnectorTokens | null,
  ): Omit<ConnectorTokens, 'site'> {
    return issuedTokens('Google', body, previous, this.clock.now());
  }
}
