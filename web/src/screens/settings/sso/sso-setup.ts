import { ApiError } from '../../../api/api-error';
import type { components, operations } from '../../../api/schema';

/** What `GET …/sso` answers: the configuration and the addresses to register at the provider. */
export type SsoConfiguration = components['schemas']['SsoConfiguration'];
export type SsoDomain = components['schemas']['SsoDomain'];
export type SsoConfigurationBody =
  operations['putSsoConfiguration']['requestBody']['content']['application/json'];
type Role = NonNullable<SsoConfiguration['provision_role']>;

/** Where Settings' SSO page lives; the test sign-in comes back here. */
export const SSO_PAGE_PATH = '/settings/sso';

/**
 * The OIDC choices: the two presets, which name the issuer (Microsoft's
 * from the tenant), and any other provider by its issuer.
 */
export type OidcProvider = 'google' | 'microsoft' | 'other';

export const OIDC_PROVIDER_NAMES: Readonly<Record<OidcProvider, string>> = {
  google: 'Google',
  microsoft: 'Microsoft Entra ID',
  other: 'Another OIDC provider',
};

const MICROSOFT_ISSUER = /^https:\/\/login\.microsoftonline\.com\/([^/]+)\/v2\.0$/;

/** The issuer a preset stands for; null for Microsoft without a tenant. */
export function presetIssuer(provider: 'google' | 'microsoft', tenant: string): string | null {
  if (provider === 'google') return 'https://accounts.google.com';
  const trimmed = tenant.trim();
  return trimmed ? `https://login.microsoftonline.com/${trimmed}/v2.0` : null;
}

/** The Microsoft tenant an issuer names, or '' when it is not a Microsoft issuer. */
export function tenantOf(issuer: string): string {
  return MICROSOFT_ISSUER.exec(issuer)?.[1] ?? '';
}

/** OIDC Discovery 1.0 §4: where the service reads the provider's endpoints and keys. */
export function discoveryUrl(issuer: string): string {
  return `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
}

/**
 * The addresses an administrator registers at the identity provider. Once
 * SSO is saved the API names them (`redirect_uri`, `saml_service_provider`,
 * `sign_in_url`); before that, they are the same paths on this origin, which
 * is where SSO runs: the provider needs them before there is
 * anything to save.
 */
export interface ServiceProviderValues {
  readonly redirectUri: string;
  readonly acsUrl: string;
  readonly entityId: string;
  /** `GET` of the entity id is our SP metadata. */
  readonly metadataUrl: string;
}

export function serviceProviderValues(
  origin: string,
  orgId: string,
  saved: SsoConfiguration | null,
): ServiceProviderValues {
  if (saved) {
    return {
      redirectUri: saved.redirect_uri,
      acsUrl: saved.saml_service_provider.acs_url,
      entityId: saved.saml_service_provider.entity_id,
      metadataUrl: saved.saml_service_provider.entity_id,
    };
  }
  const saml = `${origin}/api/v1/sso/saml/${orgId}`;
  return {
    redirectUri: `${origin}/api/v1/sso/oidc/callback`,
    acsUrl: saml,
    entityId: saml,
    metadataUrl: saml,
  };
}

/** The test sign-in: SSO for this organization, landing back on this page, marked as a test. */
export function testSignInHref(orgId: string): string {
  const next = `${SSO_PAGE_PATH}?tested=1`;
  return `/api/v1/sso/start?org_id=${encodeURIComponent(orgId)}&next=${encodeURIComponent(next)}`;
}

/** The certificates pasted in one field: each PEM block, or the whole text when it has none. */
export function splitCertificates(text: string): string[] {
  const blocks = text.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g);
  if (blocks) return blocks.map((block) => block.trim());
  const trimmed = text.trim();
  return trimmed ? [trimmed] : [];
}

/**
 * The three ways to give a SAML IdP: its metadata's URL (kept,
 * read once), its metadata pasted or read from a file, or by hand.
 */
export type SamlSource = 'url' | 'xml' | 'manual';

export const SAML_SOURCE_NAMES: Readonly<Record<SamlSource, string>> = {
  url: 'From its metadata URL',
  xml: 'From its metadata XML',
  manual: 'By hand',
};

/** The way a saved SAML configuration was given: by its metadata URL when one is kept, else by hand. */
export function samlSourceOf(saved: SsoConfiguration | null): SamlSource {
  if (!saved?.saml) return 'url';
  return saved.saml.metadata_url ? 'url' : 'manual';
}

/** The form's values, read from its FormData (empty optional fields are ''). */
export interface ProviderFormValues {
  readonly protocol: 'oidc' | 'saml';
  readonly oidcProvider: OidcProvider;
  readonly tenant: string;
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly samlSource: SamlSource;
  readonly metadataUrl: string;
  readonly metadataXml: string;
  /** Optional: the metadata must be signed with it. */
  readonly metadataSigningCertificate: string;
  readonly idpEntityId: string;
  readonly ssoUrl: string;
  readonly ssoBinding: 'redirect' | 'post';
  readonly certificates: string;
  readonly emailAttribute: string;
  /** '' refuses people without an account (the null). */
  readonly provisionRole: Role | '';
}

/**
 * The `PUT …/sso` body the form describes. `enforce_sso` and the OIDC
 * scopes are not on the form: they are kept as saved (enforcement has its
 * own confirmed switch). An empty client secret keeps the saved one.
 */
export function configurationBody(
  values: ProviderFormValues,
  saved: SsoConfiguration | null,
): SsoConfigurationBody {
  const common = {
    enforce_sso: saved?.enforce_sso ?? false,
    provision_role: values.provisionRole === '' ? null : values.provisionRole,
    ...(values.emailAttribute.trim()
      ? { attribute_mapping: { email: values.emailAttribute.trim() } }
      : {}),
  };
  if (values.protocol === 'saml') {
    return { protocol: 'saml', ...common, saml: samlBody(values) };
  }
  const provider =
    values.oidcProvider === 'other'
      ? { issuer: values.issuer.trim() }
      : values.oidcProvider === 'microsoft'
        ? { preset: 'microsoft' as const, tenant: values.tenant.trim() }
        : { preset: 'google' as const };
  return {
    protocol: 'oidc',
    ...common,
    oidc: {
      ...provider,
      client_id: values.clientId.trim(),
      ...(values.clientSecret ? { client_secret: values.clientSecret } : {}),
      ...(saved?.oidc ? { scopes: saved.oidc.scopes } : {}),
    },
  };
}

/** Exactly one way to give the IdP; a metadata signing certificate only with metadata. */
function samlBody(values: ProviderFormValues) {
  if (values.samlSource === 'manual') {
    return {
      idp_entity_id: values.idpEntityId.trim(),
      sso_url: values.ssoUrl.trim(),
      sso_binding: values.ssoBinding,
      idp_certificates: splitCertificates(values.certificates),
    };
  }
  const signing = values.metadataSigningCertificate.trim();
  return {
    ...(values.samlSource === 'url'
      ? { metadata_url: values.metadataUrl.trim() }
      : { metadata_xml: values.metadataXml }),
    ...(signing ? { metadata_signing_certificate: signing } : {}),
  };
}

/**
 * The saved configuration as a `PUT` body with enforcement changed: every
 * other setting as it is (the client secret is kept by leaving it out).
 */
export function withEnforcement(saved: SsoConfiguration, enforce: boolean): SsoConfigurationBody {
  const common = {
    enforce_sso: enforce,
    provision_role: saved.provision_role,
    attribute_mapping: saved.attribute_mapping,
  };
  if (saved.protocol === 'saml' && saved.saml) {
    return {
      protocol: 'saml',
      ...common,
      // The settings as read, not the metadata again (nothing changes but enforcement).
      saml: {
        idp_entity_id: saved.saml.idp_entity_id,
        sso_url: saved.saml.sso_url,
        sso_binding: saved.saml.sso_binding,
        idp_certificates: saved.saml.idp_certificates,
      },
    };
  }
  const oidc = saved.oidc;
  if (!oidc) throw new Error('An OIDC configuration without its settings');
  const provider =
    oidc.preset === 'microsoft'
      ? { preset: 'microsoft' as const, tenant: tenantOf(oidc.issuer) }
      : oidc.preset === 'google'
        ? { preset: 'google' as const }
        : { issuer: oidc.issuer };
  return {
    protocol: 'oidc',
    ...common,
    oidc: { ...provider, client_id: oidc.client_id, scopes: oidc.scopes },
  };
}

/** Which OIDC choice a saved configuration is. */
export function providerOf(saved: SsoConfiguration | null): OidcProvider {
  return saved?.oidc?.preset ?? (saved?.oidc ? 'other' : 'google');
}

const FIELD_LABELS: Readonly<Record<string, string>> = {
  domain: 'Domain',
  'oidc.issuer': 'Issuer',
  'oidc.tenant': 'Tenant',
  'oidc.client_id': 'Client ID',
  'oidc.client_secret': 'Client secret',
  'oidc.scopes': 'Scopes',
  'saml.idp_entity_id': 'IdP entity ID',
  'saml.sso_url': 'SSO URL',
  'saml.idp_certificates': 'Signing certificates',
  'saml.sso_binding': 'Binding',
  'saml.metadata_url': 'Metadata URL',
  'saml.metadata_xml': 'Metadata XML',
  'saml.metadata_signing_certificate': 'Metadata signing certificate',
  'attribute_mapping.email': 'Email attribute',
  provision_role: 'New people',
};

/** A 400's field path as the form labels it (`saml.idp_certificates.1` is the second certificate). */
export function fieldLabel(path: string): string {
  const certificate = /^saml\.idp_certificates\.(\d+)$/.exec(path);
  if (certificate) return `Signing certificates (certificate ${Number(certificate[1]) + 1})`;
  return FIELD_LABELS[path] ?? path;
}

/** The input id a 400's field path points at, for aria-invalid and focus. */
export function fieldInputName(path: string): string | null {
  if (path.startsWith('saml.idp_certificates')) return 'certificates';
  const names: Readonly<Record<string, string>> = {
    'oidc.issuer': 'issuer',
    'oidc.tenant': 'tenant',
    'oidc.client_id': 'client_id',
    'oidc.client_secret': 'client_secret',
    'saml.idp_entity_id': 'idp_entity_id',
    'saml.sso_url': 'sso_url',
    'saml.metadata_url': 'metadata_url',
    'saml.metadata_xml': 'metadata_xml',
    'saml.metadata_signing_certificate': 'metadata_signing_certificate',
    'attribute_mapping.email': 'email_attribute',
  };
  return names[path] ?? null;
}

/**
 * A refused SSO write, in words: the reasons D14 and P85/P86 give
 * say what to do next; anything else keeps the client's sentence.
 */
export function ssoFailureSentence(error: unknown): string | null {
  if (!(error instanceof ApiError)) return null;
  const record = error.details.txt_record as { name?: unknown; value?: unknown } | undefined;
  switch (error.reason) {
    case 'plan_required':
      return `Single sign-on needs the enterprise plan; this organization is on ${String(
        error.details.current_plan ?? 'another plan',
      )}.`;
    case 'verified_domain_required':
      return 'Verify a domain first: SSO signs in people whose email is in a verified domain.';
    case 'txt_record_not_found':
      return `The DNS has no TXT record ${
        typeof record?.name === 'string' ? record.name : ''
      } with this value yet. Publish it at your DNS provider and verify again; a new record can take from a few minutes to a few hours to be seen.`;
    case 'domain_taken':
      return 'Another organization has already verified this domain. A domain can be verified by one organization at a time: ask its owner, or remove it there first.';
    default:
      break;
  }
  if (error.status === 503) {
    return `The DNS look-up failed, so nothing was decided: try again in ${
      error.retryAfter ?? 30
    } s.`;
  }
  return null;
}

/** The failure with SSO's own sentence in place of the generic one, reference kept (for ErrorNotice). */
export function explainSsoFailure(error: unknown): unknown {
  const sentence = ssoFailureSentence(error);
  if (!sentence || !(error instanceof ApiError)) return error;
  return new ApiError(
    error.status,
    error.code,
    sentence,
    error.serverMessage,
    error.details,
    error.requestId,
    error.retryAfter,
  );
}
