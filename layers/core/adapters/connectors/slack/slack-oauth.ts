import {
  ConnectionCallbackError,
  ConnectionLostError,
  type ConnectorTokens,
  ProviderUnavailableError,
} from '../../../domain/connector';
import type { Clock } from '../../../ports/clock.port';
import type {
  AuthorizationRequest,
  CodeExchange,
  OAuthApp,
  ProviderOAuth,
  Revocation,
} from '../../../ports/connector.port';
import { issuedTokens, type ProviderFetch, readJsonObject, stringOr } from '../oauth-http';

/** Where Slack is (settings may point it at a stand-in for tests). */
export interface SlackEndpoints {
  /** `/oauth/v2/authorize` and `/api/<method>` under it. @default https://slack.com */
  readonly baseUrl: string;
}

export const SLACK_ENDPOINTS: SlackEndpoints = { baseUrl: 'https://slack.com' };

/**
 * The bot scopes the Slack app asks for (docs/connectors.md): channel
 * details and history of public channels (and joining the chosen ones) and
 * of private channels the app was added to, and people's names. No user
 * token, nothing that writes messages, no files.
 */
export const SLACK_SCOPES = [
  'channels:read',
  'channels:history',
  'channels:join',
  'groups:read',
  'groups:history',
  'users:read',
] as const;

/**
 * Slack's answers (`ok:false`, HTTP 200) that mean the grant no longer works:
 * revoked or uninstalled, a deleted workspace or user, or scopes the grant
 * lacks (only a new consent gives them). P147: `Connection failed` until reconnected.
 */
export const SLACK_GRANT_ERRORS = new Set([
  'invalid_auth',
  'not_authed',
  'token_revoked',
  'account_inactive',
  'missing_scope',
  'invalid_refresh_token',
  'invalid_grant',
  'app_uninstalled',
  'team_access_not_granted',
]);

export const slackApiUrl = (endpoints: SlackEndpoints, method: string) =>
  `${endpoints.baseUrl.replace(/\/+$/, '')}/api/${method}`;

/**
 * Slack's OAuth v2: the bot token of an app installed in one
 * workspace, through `/oauth/v2/authorize` and `oauth.v2.access` (client
 * credentials by HTTP Basic as Slack recommends, PKCE sent as well). With
 * token rotation on, access tokens expire after 12 hours and each refresh
 * returns a new refresh token; without it the token never expires and there
 * is nothing to renew. `auth.test` names the workspace (`site`), and
 * `auth.revoke` revokes the token at disconnect.
 */
export class SlackOAuth implements ProviderOAuth {
  readonly scopes = SLACK_SCOPES;

  constructor(
    private readonly fetch: ProviderFetch,
    private readonly clock: Clock,
    private readonly endpoints: SlackEndpoints = SLACK_ENDPOINTS,
  ) {}

  authorizationUrl(app: OAuthApp, request: AuthorizationRequest): string {
    const url = new URL(`${this.endpoints.baseUrl.replace(/\/+$/, '')}/oauth/v2/authorize`);
    url.search = new URLSearchParams({
      client_id: app.clientId,
      // Slack separates scopes with commas.
      scope: this.scopes.join(','),
      redirect_uri: request.redirectUri,
      state: request.state,
      code_challenge: request.codeChallenge,
      code_challenge_method: 'S256',
    }).toString();
    return url.toString();
  }

  async exchangeCode(app: OAuthApp, request: CodeExchange): Promise<ConnectorTokens> {
    const body = await this.access(app, {
      grant_type: 'authorization_code',
      code: request.code,
      redirect_uri: request.redirectUri,
      code_verifier: request.codeVerifier,
    });
    if (body.ok !== true) {
      throw new ConnectionCallbackError(
        `Slack refused the authorization code (${stringOr(body.error, 'no reason given')})`,
      );
    }
    const tokens = this.tokensOf(body, null);
    return { ...tokens, site: await this.workspaceOf(tokens.access_token) };
  }

  async refresh(app: OAuthApp, tokens: ConnectorTokens): Promise<ConnectorTokens> {
    if (!tokens.refresh_token) {
      throw new ConnectionLostError(
        'The Slack token expired and Slack gave no refresh token (token rotation is off): reconnect the data source',
      );
    }
    const body = await this.access(app, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
    });
    if (body.ok === true) return { ...this.tokensOf(body, tokens), site: tokens.site };
    const error = stringOr(body.error, 'unknown_error') ?? 'unknown_error';
    if (SLACK_GRANT_ERRORS.has(error)) {
      throw new ConnectionLostError(
        `Slack refused the refresh token (${error}): access was revoked; reconnect the data source`,
      );
    }
    throw new ProviderUnavailableError(`Slack's oauth.v2.access answered ${error}`);
  }

  /**
   * P149 with `auth.revoke`. An access token that expired (rotation) is
   * renewed first so that the grant itself is revoked; a token Slack already
   * refuses (revoked, uninstalled) counts as revoked.
   */
  async revoke(app: OAuthApp, tokens: ConnectorTokens): Promise<Revocation> {
    try {
      let error = await this.revokeToken(tokens.access_token);
      if (error === 'token_expired' && tokens.refresh_token) {
        try {
          error = await this.revokeToken((await this.refresh(app, tokens)).access_token);
        } catch (refusal) {
          if (refusal instanceof ConnectionLostError) return { revoked: true };
          throw refusal;
        }
      }
      if (error === null || SLACK_GRANT_ERRORS.has(error)) return { revoked: true };
      return {
        revoked: false,
        reason: `Slack's auth.revoke answered ${error}; remove the app under Manage apps in the workspace`,
      };
    } catch (failure) {
      return { revoked: false, reason: (failure as Error).message };
    }
  }

  /** `null` when revoked, else Slack's error. */
  private async revokeToken(token: string): Promise<string | null> {
    const response = await this.fetch(slackApiUrl(this.endpoints, 'auth.revoke'), {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${token}`,
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: '',
    });
    if (response.status !== 200) {
      await response.arrayBuffer();
      return `HTTP ${response.status}`;
    }
    const body = await readJsonObject(response);
    return body.ok === true ? null : (stringOr(body.error, 'unknown_error') ?? 'unknown_error');
  }

  private async access(
    app: OAuthApp,
    form: Record<string, string>,
  ): Promise<Record<string, unknown>> {
    const response = await this.fetch(slackApiUrl(this.endpoints, 'oauth.v2.access'), {
      method: 'POST',
      headers: {
        Authorization: `Basic ${Buffer.from(`${encodeURIComponent(app.clientId)}:${encodeURIComponent(app.clientSecret)}`).toString('base64')}`,
        'Content-Type': 'application/x-www-form-urlencoded',
        Accept: 'application/json',
      },
      body: new URLSearchParams(form).toString(),
    });
    if (response.status >= 500 || response.status === 429) {
      await response.arrayBuffer();
      throw new ProviderUnavailableError(`Slack's oauth.v2.access answered ${response.status}`);
    }
    const body = await readJsonObject(response);
    // Slack answers 200 with `ok`; an RFC 6749 error (HTTP 400, `error`) reads the same way.
    return response.status === 200 ? body : { ok: false, error: body.error };
  }

  private tokensOf(
    body: Record<string, unknown>,
    previous: ConnectorTokens | null,
  ): Omit<ConnectorTokens, 'site'> {
    return issuedTokens('Slack', body, previous, this.clock.now());
  }

  /** The workspace the bot token belongs to (`auth.test`): its id and address. */
  private async workspaceOf(accessToken: string): Promise<{ id: string; url: string }> {
    const response = await this.fetch(slackApiUrl(this.endpoints, 'auth.test'), {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${accessToken}`,
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: '',
    });
    const body = response.status === 200 ? await readJsonObject(response) : {};
    if (response.status !== 200) await response.arrayBuffer().catch(() => undefined);
    const teamId = stringOr(body.team_id, null);
    const url = stringOr(body.url, null);
    if (body.ok !== true || !teamId || !url || !URL.canParse(url)) {
      throw new ConnectionCallbackError(
        `Slack's auth.test did not confirm the new token (${stringOr(body.error, String(response.status))})`,
      );
    }
    return { id: teamId, url: url.replace(/\/+$/, '') };
  }
}
