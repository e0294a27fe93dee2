import type { UrlCheck } from './webhook-transport.port';

/** An organization's OIDC provider, as the relying party needs it for one sign-in. */
export interface OidcClientSettings {
  readonly issuer: string;
  readonly clientId: string;
  readonly scopes: readonly string[];
  readonly redirectUri: string;
}

/** What leaving for the provider needs: the flow's secrets (D14: PKCE, state, nonce). */
export interface OidcAuthorization {
  readonly state: string;
  readonly nonce: string;
  /** S256 of the PKCE verifier. */
  readonly codeChallenge: string;
}

/** What coming back needs: the code, and the flow's secrets to check the answer against. */
export interface OidcCallback {
  readonly code: string;
  readonly codeVerifier: string;
  readonly nonce: string;
  readonly clientSecret: string;
}

/**
 * The OIDC relying party (D14). Every failure to prove the user (provider
 * refusal, bad signature, wrong issuer, audience, nonce, expired token)
 * throws SsoAuthenticationFailedError.
 */
export interface OidcRelyingParty {
  /** The provider's authorization endpoint with the request's parameters. */
  authorizationUrl(client: OidcClientSettings, request: OidcAuthorization): Promise<string>;
  /** Exchanges the code (with the PKCE verifier) and verifies the ID token against the provider's JWKS: its claims. */
  completeSignIn(
    client: OidcClientSettings,
    callback: OidcCallback,
  ): Promise<Record<string, unknown>>;
}

/** The service provider's side of one organization's SAML trust (D14). */
export interface SamlTrust {
  /** Our entity id for this organization: the audience assertions must name. */
  readonly spEntityId: string;
  /** Where the IdP posts responses (the recipient assertions must name). */
  readonly acsUrl: string;
  readonly idpEntityId: string;
  readonly idpSsoUrl: string;
  readonly idpCertificates: readonly string[];
}

/** A SAML assertion that passed every check: signature, audience, recipient, time, InResponseTo. */
export interface SamlIdentity {
  readonly issuer: string;
  readonly assertionId: string;
  /** The request it answers (checked against the flow). */
  readonly inResponseTo: string;
  readonly nameId: string;
  readonly attributes: Readonly<Record<string, unknown>>;
  /** Epoch seconds: when the assertion stops being valid (how long its id must be remembered). */
  readonly notOnOrAfter: number | null;
}

/** SAML 2.0 SP-initiated sign-in (D14), through a maintained SAML library. */
export interface SamlServiceProvider {
  /** The IdP's SSO URL with a signed-over-nothing AuthnRequest (HTTP-Redirect binding) of id `requestId`. */
  authorizationUrl(trust: SamlTrust, requestId: string, relayState: string): Promise<string>;
  /** Validates a posted `SAMLResponse`; throws SsoAuthenticationFailedError for anything not proven. */
  validateResponse(
    trust: SamlTrust,
    samlResponse: string,
    expectedRequestId: string,
  ): Promise<SamlIdentity>;
  /** Our SP metadata for the organization's administrators to give their IdP. */
  metadata(trust: SamlTrust): Promise<string>;
}

/**
 * P220: the rule for the identity provider addresses an organization sets
 * (the OIDC issuer, the SAML SSO URL): `https`, no user info, `http` only to
 * this machine where private addresses are allowed (D35).
 */
export interface IdentityProviderUrlRule {
  check(url: string): UrlCheck;
}
