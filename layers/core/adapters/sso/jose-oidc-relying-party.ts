import { createRemoteJWKSet, customFetch, type JWTVerifyGetKey, jwtVerify } from 'jose';
import { SsoAuthenticationFailedError } from '../../domain/errors';
import type { Clock } from '../../ports/clock.port';
import type {
  OidcAuthorization,
  OidcCallback,
  OidcClientSettings,
  OidcRelyingParty,
} from '../../ports/identity-provider.port';
import { guardedFetch, OutboundRequestError } from '../net/guarded-fetch';
import { checkFetchedProviderUrl, checkIdentityProviderUrl } from '../net/identity-provider-urls';
import type { OutboundPolicy } from '../net/outbound-policy';

/** What the service reads of a provider's discovery document (OpenID Connect Discovery 1.0). */
interface ProviderMetadata {
  readonly issuer: string;
  readonly authorization_endpoint: string;
  readonly token_endpoint: string;
  readonly jwks_uri: string;
  readonly token_endpoint_auth_methods_supported?: readonly string[];
}

/** Asymmetric algorithms only: HS* would make the client secret a signing key, `none` no signature at all. */
const ID_TOKEN_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
];
/** The discovery document's addresses the service uses, each checked like the issuer. */
const DISCOVERED_ENDPOINTS = ['authorization_endpoint', 'token_endpoint', 'jwks_uri'] as const;

/** Discovery documents and JWKS are kept this long per issuer. */
const METADATA_MAX_AGE_MS = 10 * 60 * 1000;
const CLOCK_TOLERANCE_SECONDS = 60;
const BASE_SCOPES = ['openid', 'email', 'profile'];

const failed = (message: string, cause?: unknown) =>
  new SsoAuthenticationFailedError(message, {}, cause === undefined ? undefined : { cause });

/**
 * SSO's OIDC relying party with `jose`: discovery, the authorization code
 * flow with PKCE (S256), `state` and `nonce`, and the ID token verified
 * against the provider's JWKS — signature, `iss`, `aud` (and `azp` when
 * there are several audiences), `exp`/`iat` with a minute of tolerance, and
 * the flow's nonce. Every request to the provider goes through the SSRF guard's
 * address rules (the issuer is customer input), and so does every address
 * the discovery document names before it is used.
 */
export class JoseOidcRelyingParty implements OidcRelyingParty {
  readonly #fetch: ReturnType<typeof guardedFetch>;
  readonly #metadata = new Map<string, { at: number; value: Promise<ProviderMetadata> }>();
  readonly #keys = new Map<string, JWTVerifyGetKey>();

  constructor(
    private readonly policy: OutboundPolicy,
    private readonly clock: Clock,
  ) {
    this.#fetch = guardedFetch(policy, { timeoutMs: 5000, maxBytes: 512 * 1024 });
  }

  async authorizationUrl(client: OidcClientSettings, request: OidcAuthorization): Promise<string> {
    const metadata = await this.#discover(client.issuer);
    const url = new URL(metadata.authorization_endpoint);
    const params = {
      response_type: 'code',
      client_id: client.clientId,
      redirect_uri: client.redirectUri,
      scope: [...new Set([...BASE_SCOPES, ...client.scopes])].join(' '),
      state: request.state,
      nonce: request.nonce,
      code_challenge: request.codeChallenge,
      code_challenge_method: 'S256',
    };
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    return url.href;
  }

  async completeSignIn(
    client: OidcClientSettings,
    callback: OidcCallback,
  ): Promise<Record<string, unknown>> {
    const metadata = await this.#discover(client.issuer);
    const idToken = await this.#exchange(metadata, client, callback);
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(idToken, this.#jwks(metadata), {
        issuer: metadata.issuer,
        audience: client.clientId,
        algorithms: ID_TOKEN_ALGORITHMS,
        currentDate: this.clock.now(),
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        requiredClaims: ['iss', 'sub', 'aud', 'exp', 'iat', 'nonce'],
      }));
    } catch (error) {
      throw failed(`ID token refused: ${(error as Error).message}`, error);
    }
    if (payload.nonce !== callback.nonce) throw failed('ID token nonce does not match the sign-in');
    // OIDC Core 3.1.3.7: with several audiences, the token must be issued to us (azp).
    if (Array.isArray(payload.aud) && payload.aud.length > 1 && payload.azp !== client.clientId) {
      throw failed('ID token was issued to another party (azp)');
    }
    return payload;
  }

  /** The token endpoint: the code, the PKCE verifier, and the client's credentials. */
  async #exchange(
    metadata: ProviderMetadata,
    client: OidcClientSettings,
    callback: OidcCallback,
  ): Promise<string> {
    const form = new URLSearchParams({
      grant_type: 'authorization_code',
      code: callback.code,
      redirect_uri: client.redirectUri,
      code_verifier: callback.codeVerifier,
    });
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    };
    const methods = metadata.token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
    if (methods.includes('client_secret_basic')) {
      // RFC 6749 §2.3.1: each part form-encoded before Basic's base64.
      const user = encodeURIComponent(client.clientId);
      const password = encodeURIComponent(callback.clientSecret);
      headers.authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    } else {
      form.set('client_id', client.clientId);
      form.set('client_secret', callback.clientSecret);
    }
    const response = await this.#request(metadata.token_endpoint, {
      method: 'POST',
      headers,
      body: form.toString(),
    });
    const body = (await response.json().catch(() => null)) as Record<string, unknown> | null;
    if (!response.ok || typeof body?.id_token !== 'string') {
      const reason = typeof body?.error === 'string' ? body.error.slice(0, 100) : response.status;
      throw failed(`The token endpoint refused the code (${reason})`);
    }
    return body.id_token;
  }

  #jwks(metadata: ProviderMetadata): JWTVerifyGetKey {
    let keys = this.#keys.get(metadata.jwks_uri);
    if (!keys) {
      keys = createRemoteJWKSet(new URL(metadata.jwks_uri), {
        [customFetch]: (url, options) => this.#fetch(url, options as RequestInit),
        cacheMaxAge: METADATA_MAX_AGE_MS,
      });
      this.#keys.set(metadata.jwks_uri, keys);
    }
    return keys;
  }

  #discover(issuer: string): Promise<ProviderMetadata> {
    const cached = this.#metadata.get(issuer);
    const now = Date.now();
    if (cached && now - cached.at < METADATA_MAX_AGE_MS) return cached.value;
    const value = this.#fetchMetadata(issuer);
    this.#metadata.set(issuer, { at: now, value });
    // A failed discovery is not kept: the next sign-in tries again.
    value.catch(() => this.#metadata.delete(issuer));
    return value;
  }

  async #fetchMetadata(issuer: string): Promise<ProviderMetadata> {
    // The issuer was checked when configured; again for what was stored before that rule.
    const issuerCheck = checkIdentityProviderUrl(issuer, this.policy);
    if (!issuerCheck.ok) throw failed(`Issuer refused: ${issuerCheck.reason}`);
    const url = `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
    const response = await this.#request(url, { headers: { accept: 'application/json' } });
    const body = (await response.json().catch(() => null)) as Partial<ProviderMetadata> | null;
    if (!response.ok || !body) throw failed(`Discovery at ${url} answered ${response.status}`);
    // OIDC Discovery §4.3: the document must name exactly the issuer it was fetched for.
    if (body.issuer !== issuer) throw failed(`Discovery names issuer ${String(body.issuer)}`);
    const { authorization_endpoint, token_endpoint, jwks_uri } = body;
    if (
      typeof authorization_endpoint !== 'string' ||
      typeof token_endpoint !== 'string' ||
      typeof jwks_uri !== 'string'
    ) {
      throw failed('Discovery document lacks an endpoint');
    }
    // The document is the provider's word, not ours: each address it names is
    // held to the issuer's rule (https, no user info, public addresses) before any is used.
    for (const name of DISCOVERED_ENDPOINTS) {
      const check = await checkFetchedProviderUrl(body[name] as string, this.policy);
      if (!check.ok) throw failed(`Discovery's ${name} refused: ${check.reason}`);
    }
    return body as ProviderMetadata;
  }

  async #request(url: string, init: RequestInit): Promise<Response> {
    try {
      return await this.#fetch(url, init);
    } catch (error) {
      if (error instanceof OutboundRequestError)
        throw failed(`Provider unreachable: ${error.message}`, error);
      throw error;
    }
  }
}
