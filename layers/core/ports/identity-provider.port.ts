import type { UrlCheck } from './webhook-transport.port';

/** An organization's OIDC provider, as the relying party needs it for one sign-in. */
export interface OidcClientSettings {
  readonly issuer: string;
  readonly clientId: string;
  readonly scopes: readonly string[];
  readonly redirectUri: string;
}

/** What leaving for the provider needs: the flow's secrets (PKCE, state, nonce). */
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
 * The OIDC relying party. Every failure to prove the user (provider
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

/** The service provider's side of one organization's SAML trust. */
export interface SamlTrust {
  /** Our entity id for this organization: the audience assertions must name. */
  readonly spEntityId: string;
  /** Where the IdP posts responses (the recipient assertions must name). */
  readonly acsUrl: string;
  readonly idpEntityId: string;
  readonly idpSsoUrl: string;
  /** How the AuthnRequest travels to `idpSsoUrl`: a redirect, or a form the browser posts. */
  readonly idpSsoBinding: SamlBinding;
  readonly idpCertificates: readonly string[];
}

/** SAML Bindings §3.4 (HTTP-Redirect) and §3.5 (HTTP-POST), the two a browser sign-in uses. */
export type SamlBinding = 'redirect' | 'post';

/** An AuthnRequest as the browser carries it: a URL to follow, or a form to post. */
export type SamlAuthorization =
  | { readonly binding: 'redirect'; readonly location: string }
  | {
      readonly binding: 'post';
      readonly action: string;
      readonly fields: Readonly<Record<string, string>>;
    };

/** What an identity provider's SAML metadata says about it. */
export interface SamlIdentityProviderMetadata {
  readonly entityId: string;
  readonly ssoUrl: string;
  readonly ssoBinding: SamlBinding;
  /** Every signing certificate, base64 DER as metadata carries them (several during a rollover). */
  readonly certificates: readonly string[];
}

/** Why metadata was refused, in words for the administrator; nothing of it is trusted. */
export class SamlMetadataError extends Error {
  override readonly name = 'SamlMetadataError';
}

/**
 * Reads an IdP's SAML 2.0 metadata ("a metadata URL or XML file")
 * with a maintained XML parser. Throws SamlMetadataError for anything it
 * cannot use: malformed or oversized XML, no identity provider, no usable
 * binding, expired, or unsigned (or wrongly signed) when a signing
 * certificate is required.
 */
export interface SamlMetadataReader {
  read(
    xml: string,
    options: { readonly signingCertificate?: string | undefined; readonly now: Date },
  ): Promise<SamlIdentityProviderMetadata>;
  /** The document at `url`, fetched under the SSRF guard (bounded in time and size); throws SamlMetadataError. */
  fetch(url: string): Promise<string>;
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

/** SAML 2.0 SP-initiated sign-in, through a maintained SAML library. */
export interface SamlServiceProvider {
  /** An unsigned AuthnRequest of id `requestId` for the trust's binding: a redirect URL or a form to post. */
  authorization(
    trust: SamlTrust,
    requestId: string,
    relayState: string,
  ): Promise<SamlAuthorization>;
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
 * The rule for the identity provider addresses an organization sets
 * (the OIDC issuer, the SAML SSO URL): `https`, no user info, `http` only to
 * this machine where private addresses are allowed.
 */
export interface IdentityProviderUrlRule {
  check(url: string): UrlCheck;
}
