/**
 * The Microsoft identity platform's v2.0 endpoints for the Graph stand-in
 * (`MicrosoftGraphEmulator`), for one app: `/authorize` (consent given at
 * once, or refused) and `/token` (form-encoded, the authorization code with
 * PKCE checked, a new refresh token at each renewal, `invalid_grant` with an
 * AADSTS description once access is revoked). Access tokens live an hour on
 * the given clock.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Clock } from '../../layers/core/ports/clock.port';

interface Grant {
  readonly refreshTokens: Set<string>;
  revoked: boolean;
}

const ACCESS_SECONDS = 3599;

export class MicrosoftIdentityPlatform {
  /** Consent refused at `/authorize` (`error=access_denied`). */
  denyConsent = false;
  private readonly codes = new Map<string, { challenge: string; redirectUri: string }>();
  private readonly grants: Grant[] = [];
  private readonly refreshTokens = new Map<string, Grant>();
  private readonly accessTokens = new Map<string, { grant: Grant; expiresAt: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly client: { readonly id: string; readonly secret: string },
  ) {}

  /** The user (or an administrator) removed the app's access: tokens and refresh tokens stop working. */
  revokeEverything(): void {
    for (const grant of this.grants) grant.revoked = true;
  }

  /** Whether a bearer token is one this platform issued, unexpired and not revoked. */
  isValidAccessToken(token: string): boolean {
    const access = this.accessTokens.get(token);
    return !!access && !access.grant.revoked && access.expiresAt > this.clock.now().getTime();
  }

  /** Every access and refresh token ever issued (to look for them in logs and responses). */
  issuedTokens(): string[] {
    return [...this.accessTokens.keys(), ...this.refreshTokens.keys()];
  }

  authorize(url: URL, res: ServerResponse) {
    const redirectUri = url.searchParams.get('redirect_uri') ?? '';
    const state = url.searchParams.get('state') ?? '';
    if (
      url.searchParams.get('client_id') !== this.client.id ||
      url.searchParams.get('response_type') !== 'code' ||
      url.searchParams.get('code_challenge_method') !== 'S256' ||
      !redirectUri
    ) {
      return json(res, 400, {
        error: 'invalid_request',
        error_description: 'AADSTS900144: The request body must contain the following parameter',
      });
    }
    const back = new URL(redirectUri);
    if (this.denyConsent) {
      back.searchParams.set('error', 'access_denied');
      back.searchParams.set('error_description', 'AADSTS65004: User declined to consent');
    } else {
      const code = `0.A${randomBytes(24).toString('base64url')}`;
      this.codes.set(code, {
        challenge: url.searchParams.get('code_challenge') ?? '',
        redirectUri,
      });
      back.searchParams.set('code', code);
    }
    back.searchParams.set('state', state);
    res.writeHead(302, { Location: back.toString() }).end();
  }

  token(body: string, res: ServerResponse) {
    const form = new URLSearchParams(body);
    if (
      form.get('client_id') !== this.client.id ||
      form.get('client_secret') !== this.client.secret
    ) {
      return json(res, 401, {
        error: 'invalid_client',
        error_description: 'AADSTS7000215: Invalid client secret provided.',
        error_codes: [7000215],
      });
    }
    if (form.get('grant_type') === 'authorization_code') {
      const code = this.codes.get(form.get('code') ?? '');
      this.codes.delete(form.get('code') ?? '');
      const challenge = createHash('sha256')
        .update(form.get('code_verifier') ?? '')
        .digest('base64url');
      if (!code || code.redirectUri !== form.get('redirect_uri') || code.challenge !== challenge) {
        return json(res, 400, {
          error: 'invalid_grant',
          error_description:
            'AADSTS70008: The provided authorization code or refresh token has expired',
          error_codes: [70008],
        });
      }
      const grant: Grant = { refreshTokens: new Set(), revoked: false };
      this.grants.push(grant);
      return json(res, 200, this.issue(grant, form.get('scope') ?? ''));
    }
    if (form.get('grant_type') === 'refresh_token') {
      const grant = this.refreshTokens.get(form.get('refresh_token') ?? '');
      if (!grant || grant.revoked) {
        return json(res, 400, {
          error: 'invalid_grant',
          error_description:
            'AADSTS50173: The provided grant has expired due to it being revoked, a fresh auth token is needed. The user might have changed or reset their password.',
          error_codes: [50173],
        });
      }
      return json(res, 200, this.issue(grant, form.get('scope') ?? ''));
    }
    json(res, 400, { error: 'unsupported_grant_type' });
  }

  private issue(grant: Grant, scope: string) {
    const accessToken = `eyJ0eXAi.${randomBytes(24).toString('base64url')}`;
    const refreshToken = `0.AR${randomBytes(32).toString('base64url')}`;
    this.accessTokens.set(accessToken, {
      grant,
      expiresAt: this.clock.now().getTime() + ACCESS_SECONDS * 1000,
    });
    // Each renewal brings a new refresh token; Microsoft does not revoke the old one.
    grant.refreshTokens.add(refreshToken);
    this.refreshTokens.set(refreshToken, grant);
    return {
      token_type: 'Bearer',
      scope: scope
        .split(' ')
        .filter((s) => s !== 'offline_access')
        .map((s) => `https://graph.microsoft.com/${s}`)
        .join(' '),
      expires_in: ACCESS_SECONDS,
      ext_expires_in: ACCESS_SECONDS,
      access_token: accessToken,
      refresh_token: refreshToken,
    };
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
}
