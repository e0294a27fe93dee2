import { normalizeDomain } from './domain-name';
import type { Role } from './user';

export { normalizeDomain };

/** The identity provider protocols an organization can sign in with. */
export const SSO_PROTOCOLS = ['oidc', 'saml'] as const;
export type SsoProtocol = (typeof SSO_PROTOCOLS)[number];

/**
 * OIDC presets for the spec's "OAuth sign-in with two large identity
 * providers". A preset only fills in the issuer (Microsoft's from the
 * tenant); everything after that is the generic OIDC path.
 */
export const OIDC_PRESETS = {
  google: { issuer: () => 'https://accounts.google.com' },
  microsoft: {
    issuer: (tenant: string) => `https://login.microsoftonline.com/${tenant}/v2.0`,
  },
} as const;
export type OidcPreset = keyof typeof OIDC_PRESETS;

/** What an organization's OIDC provider is, as stored (the client secret sealed). */
export interface OidcSettings {
  readonly issuer: string;
  readonly client_id: string;
  readonly preset: OidcPreset | null;
  /** Extra scopes beside `openid email profile`. */
  readonly scopes: readonly string[];
}

/** What an organization's SAML identity provider is (from metadata or given directly). */
export interface SamlSettings {
  readonly idp_entity_id: string;
  readonly sso_url: string;
  /** PEM (or bare base64) signing certificates of the IdP; any one may sign. */
  readonly idp_certificates: readonly string[];
  /** The binding `sso_url` takes; absent on configurations stored before it was recorded (redirect). */
  readonly sso_binding?: 'redirect' | 'post';
  /** Where the settings were read from, when the administrator gave a metadata URL. */
  readonly metadata_url: string | null;
}

/** SSO's attribute mapping: which claim or attribute carries the email (NameID by default for SAML). */
export interface AttributeMapping {
  readonly email: string;
}

/** An organization's SSO configuration as the API shows it (never the client secret, only that one is set). */
export interface SsoConfiguration {
  readonly org_id: string;
  readonly protocol: SsoProtocol;
  /** Password sign-in is refused for the organization's users and its verified domains' emails. */
  readonly enforce_sso: boolean;
  readonly oidc: (OidcSettings & { readonly client_secret_set: boolean }) | null;
  readonly saml: SamlSettings | null;
  readonly attribute_mapping: AttributeMapping;
  /** Unknown users of a verified domain are created at their first SSO sign-in with this role; null: refused. */
  readonly provision_role: Role | null;
  readonly created_at: string;
  readonly updated_at: string;
}

export const SSO_LIMITS = {
  domainsMax: 20,
  certificatesMax: 4,
  /** How long a sign-in may take between leaving for the IdP and coming back. */
  flowSeconds: 10 * 60,
  /** How long a SAML assertion id is remembered (beyond any assertion's lifetime we accept). */
  assertionMemorySeconds: 24 * 3600,
} as const;

/** Domain verification: the TXT record an organization publishes to prove it holds a domain. */
export const DOMAIN_VERIFICATION = {
  /** The record's name under the domain: `_svc-verification.example.com`. */
  recordLabel: '_svc-verification',
  /** The record's value: `svc-domain-verification=<token>`. */
  valuePrefix: 'svc-domain-verification=',
} as const;

/**
 * `pending` until first verified; `unverified` when the daily re-check
 * found the record gone: the organization's existing users still
 * sign in, no new ones are admitted, until it is verified again.
 */
export type DomainStatus = 'pending' | 'verified' | 'unverified';

export interface SsoDomain {
  readonly domain: string;
  readonly status: DomainStatus;
  /** The TXT record to publish (name and value). */
  readonly txt_record: { readonly name: string; readonly value: string };
  readonly created_at: string;
  /** When it was (last) verified; kept when it becomes unverified. */
  readonly verified_at: string | null;
  /** When verification was last tried, and why it failed (null after success). */
  readonly checked_at: string | null;
  readonly last_error: string | null;
  /** When a re-check found the record gone (`last_error` says what it found); null otherwise. */
  readonly unverified_at: string | null;
}

/**
 * Verified domains are looked up again about daily (by the sync
 * scheduler's tick); a look-up that fails (DNS down, a timeout) proves
 * nothing either way and is tried again after `retryMs`.
 */
export const DOMAIN_RECHECK = {
  intervalMs: 24 * 3600 * 1000,
  retryMs: 3600 * 1000,
} as const;

/** The domain part of an email, normalized; null when there is none. */
export function emailDomain(email: string): string | null {
  const at = email.lastIndexOf('@');
  return at < 0 ? null : normalizeDomain(email.slice(at + 1));
}

/** The TXT record an organization publishes for `domain` with its token. */
export function verificationRecord(domain: string, token: string) {
  return {
    name: `${DOMAIN_VERIFICATION.recordLabel}.${domain}`,
    value: `${DOMAIN_VERIFICATION.valuePrefix}${token}`,
  } as const;
}

/** Where a browser starts an SSO sign-in (`?org_id=` or `?email=`). */
export const SSO_START_PATH = '/api/v1/sso/start';

/**
 * Where a browser lands after signing in through SSO when the start
 * named nowhere: the console's start page, on the origin SSO runs on.
 */
export const SSO_DEFAULT_RETURN_PATH = '/';

/**
 * A `next` the start may name: a path on the service's own origin
 * (one leading `/`, never `//` or a backslash, which browsers read as another
 * host), printable ASCII, at most 500 characters. Anything else is refused,
 * so the sign-in can never become an open redirect.
 */
export const SSO_RETURN_PATH_PATTERN = /^\/(?!\/)[\x21-\x5B\x5D-\x7E]{0,499}$/;

/** One IdP's metadata is a few KB; a federation's aggregate is not what an organization pastes or names. */
export const SAML_METADATA_LIMITS = { maxBytes: 256 * 1024, fetchTimeoutMs: 5000 } as const;
