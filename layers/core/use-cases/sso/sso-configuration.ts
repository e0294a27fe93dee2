import { randomBytes, X509Certificate } from 'node:crypto';
import {
  ConflictError,
  InvalidRequestError,
  NotFoundError,
  RequestRefusedError,
  ServiceUnavailableError,
} from '../../domain/errors';
import type { Organization } from '../../domain/organization';
import {
  type AttributeMapping,
  DOMAIN_RECHECK,
  normalizeDomain,
  OIDC_PRESETS,
  type OidcPreset,
  type SamlSettings,
  SSO_LIMITS,
  type SsoConfiguration,
  type SsoDomain,
  verificationRecord,
} from '../../domain/sso';
import type { Role } from '../../domain/user';
import type { Clock } from '../../ports/clock.port';
import {
  type IdentityProviderUrlRule,
  type SamlBinding,
  SamlMetadataError,
  type SamlMetadataReader,
} from '../../ports/identity-provider.port';
import type { OrganizationRepository } from '../../ports/organization-repository.port';
import type { PasswordSessionCutoffs } from '../../ports/session.port';
import type { SsoRepository, StoredSsoConfiguration, TxtResolver } from '../../ports/sso.port';
import type { SecretSealer } from '../../ports/webhook-repository.port';

export interface SsoConfigurationDependencies {
  readonly organizations: Pick<OrganizationRepository, 'get'>;
  readonly ssoRepository: SsoRepository;
  readonly secretSealer: SecretSealer;
  /** P223: turning `enforce_sso` on ends the password sessions it now forbids. */
  readonly passwordSessionCutoffs: Pick<
    PasswordSessionCutoffs,
    'endForOrganization' | 'endForDomain'
  >;
  readonly identityProviderUrls: IdentityProviderUrlRule;
  /** An IdP's metadata, pasted or fetched, read into the settings. */
  readonly samlMetadata: SamlMetadataReader;
  readonly clock: Clock;
}

export interface DomainVerificationDependencies {
  readonly organizations: Pick<OrganizationRepository, 'get'>;
  readonly ssoRepository: SsoRepository;
  readonly txtResolver: TxtResolver;
  /** P223: a domain verified under `enforce_sso` ends its emails' password sessions. */
  readonly passwordSessionCutoffs: Pick<PasswordSessionCutoffs, 'endForDomain'>;
  readonly clock: Clock;
}

/** The encryption context of an organization's OIDC client secret. */
export function clientSecretContext(orgId: string) {
  return { org_id: orgId, secret_id: 'sso-oidc-client', purpose: 'sso-client-secret' } as const;
}

/**
 * The organization in a path (`/organizations/:id/sso`): the caller's own,
 * else 404 as any other organization's resource is.
 */
export async function ownOrganization(
  deps: { readonly organizations: Pick<OrganizationRepository, 'get'> },
  callerOrgId: string,
  pathOrgId: string,
): Promise<Organization> {
  const organization = pathOrgId === callerOrgId ? await deps.organizations.get(pathOrgId) : null;
  if (!organization) throw new NotFoundError(`No organization ${pathOrgId}`);
  return organization;
}

/** SSO and its domains need the enterprise plan (403 otherwise). */
function requireEnterprise(organization: Organization): void {
  if (organization.plan !== 'enterprise') {
    throw new RequestRefusedError('SSO requires the enterprise plan', {
      reason: 'plan_required',
      required_plan: 'enterprise',
      current_plan: organization.plan,
    });
  }
}

/** The configuration as the API shows it: never the client secret, only whether one is set. */
export function configurationView(stored: StoredSsoConfiguration): SsoConfiguration {
  return {
    org_id: stored.org_id,
    protocol: stored.protocol,
    enforce_sso: stored.enforce_sso,
    oidc: stored.oidc && {
      ...stored.oidc,
      client_secret_set: stored.client_secret_sealed !== null,
    },
    // Stored before bindings were recorded, the SSO URL was a redirect's.
    saml: stored.saml && { ...stored.saml, sso_binding: stored.saml.sso_binding ?? 'redirect' },
    attribute_mapping: stored.attribute_mapping,
    provision_role: stored.provision_role,
    created_at: stored.created_at,
    updated_at: stored.updated_at,
  };
}

export async function getSsoConfiguration(
  deps: SsoConfigurationDependencies,
  callerOrgId: string,
  pathOrgId: string,
): Promise<SsoConfiguration> {
  await ownOrganization(deps, callerOrgId, pathOrgId);
  const stored = await deps.ssoRepository.getConfiguration(pathOrgId);
  if (!stored) throw new NotFoundError('SSO is not configured for this organization');
  return configurationView(stored);
}

export interface OidcInput {
  readonly preset?: OidcPreset | undefined;
  /** Microsoft's tenant (id or domain) for the `microsoft` preset. */
  readonly tenant?: string | undefined;
  readonly issuer?: string | undefined;
  readonly client_id: string;
  /** Required the first time; omitted later, the stored one is kept (never shown again). */
  readonly client_secret?: string | undefined;
  readonly scopes?: readonly string[] | undefined;
}

/** The IdP by hand (the first four), or its metadata pasted or at a URL: one of the three. */
export interface SamlInput {
  readonly idp_entity_id?: string | undefined;
  /** The IdP's single sign-on URL. */
  readonly sso_url?: string | undefined;
  /** How `sso_url` takes the AuthnRequest (default redirect). */
  readonly sso_binding?: SamlBinding | undefined;
  /** PEM certificate(s) the IdP signs assertions with. */
  readonly idp_certificates?: readonly string[] | undefined;
  readonly metadata_xml?: string | undefined;
  readonly metadata_url?: string | undefined;
  /** When given, the metadata must be signed with this certificate. */
  readonly metadata_signing_certificate?: string | undefined;
}

interface CommonInput {
  readonly enforce_sso: boolean;
  readonly attribute_mapping?: Partial<AttributeMapping> | undefined;
  readonly provision_role?: Role | null | undefined;
}

export type SsoConfigurationInput =
  | (CommonInput & { readonly protocol: 'oidc'; readonly oidc: OidcInput })
  | (CommonInput & { readonly protocol: 'saml'; readonly saml: SamlInput });

/** SSO's default mapping: OIDC's `email` claim, SAML's NameID. */
const DEFAULT_EMAIL_ATTRIBUTE = { oidc: 'email', saml: 'nameID' } as const;

/** Each certificate must parse as X.509 (400 naming the field otherwise); kept as PEM. */
function parseCertificates(
  certificates: readonly string[],
  field = 'saml.idp_certificates',
): string[] {
  return certificates.map((certificate, index) => {
    const pem = certificate.includes('-----BEGIN')
      ? certificate.trim()
      : `-----BEGIN CERTIFICATE-----\n${certificate.replace(/\s+/g, '')}\n-----END CERTIFICATE-----`;
    try {
      new X509Certificate(pem);
    } catch {
      throw new InvalidRequestError('An IdP certificate is not an X.509 certificate', {
        fields: [
          {
            path: field === 'saml.idp_certificates' ? `${field}.${index}` : field,
            message: 'must be a PEM certificate',
          },
        ],
      });
    }
    return pem;
  });
}

/** An identity provider address the organization sets: 400 naming the field when the rule refuses it. */
function checkProviderUrl(rule: IdentityProviderUrlRule, url: string, path: string): string {
  const check = rule.check(url);
  if (!check.ok) {
    throw new InvalidRequestError(`${path}: ${check.reason}`, {
      fields: [{ path, message: check.reason }],
    });
  }
  return url;
}

/** A preset names the issuer; an explicit issuer beside it must agree. */
function issuerOf(input: OidcInput): string {
  if (input.preset === 'microsoft' && !input.tenant) {
    throw new InvalidRequestError('The microsoft preset needs the tenant', {
      fields: [{ path: 'oidc.tenant', message: 'required with preset microsoft' }],
    });
  }
  const preset = input.preset ? OIDC_PRESETS[input.preset].issuer(input.tenant ?? '') : undefined;
  if (preset && input.issuer && input.issuer !== preset) {
    throw new InvalidRequestError(`The ${input.preset} preset's issuer is ${preset}`, {
      fields: [{ path: 'oidc.issuer', message: `must be ${preset} with this preset, or omitted` }],
    });
  }
  const issuer = preset ?? input.issuer;
  if (!issuer) {
    throw new InvalidRequestError('Name the OIDC issuer, or a preset', {
      fields: [{ path: 'oidc.issuer', message: 'required without a preset' }],
    });
  }
  return issuer;
}

const BY_HAND_FIELDS = ['idp_entity_id', 'sso_url', 'sso_binding', 'idp_certificates'] as const;

/**
 * The IdP's settings from exactly one of the three ways D14 allows.
 * Metadata is read with the service's XML reader (fetched under the SSRF guard when
 * named by URL) and its SSO URL and certificates go through the same checks
 * as typed ones; a refusal is a 400 naming the field it came from.
 */
async function samlSettings(
  deps: Pick<SsoConfigurationDependencies, 'samlMetadata' | 'identityProviderUrls' | 'clock'>,
  input: SamlInput,
): Promise<SamlSettings> {
  const byHand = BY_HAND_FIELDS.filter((field) => input[field] !== undefined);
  const ways = [
    ...(byHand.length > 0 ? [`saml.${byHand[0]}`] : []),
    ...(input.metadata_xml !== undefined ? ['saml.metadata_xml'] : []),
    ...(input.metadata_url !== undefined ? ['saml.metadata_url'] : []),
  ];
  if (ways.length !== 1) {
    const message =
      'give the IdP by hand (idp_entity_id, sso_url, idp_certificates), or its metadata_xml, or its metadata_url: exactly one';
    throw new InvalidRequestError(`SAML: ${message}`, {
      fields: (ways.length === 0 ? ['saml.metadata_xml'] : ways).map((path) => ({ path, message })),
    });
  }
  if (byHand.length > 0) {
    if (input.metadata_signing_certificate !== undefined) {
      throw new InvalidRequestError('A metadata signing certificate needs metadata', {
        fields: [
          {
            path: 'saml.metadata_signing_certificate',
            message: 'only with metadata_xml or metadata_url',
          },
        ],
      });
    }
    const missing = (['idp_entity_id', 'sso_url', 'idp_certificates'] as const).filter(
      (field) => input[field] === undefined,
    );
    if (missing.length > 0) {
      throw new InvalidRequestError(`SAML by hand needs ${missing.join(', ')}`, {
        fields: missing.map((field) => ({ path: `saml.${field}`, message: 'required' })),
      });
    }
    return {
      idp_entity_id: input.idp_entity_id ?? '',
      sso_url: checkProviderUrl(deps.identityProviderUrls, input.sso_url ?? '', 'saml.sso_url'),
      sso_binding: input.sso_binding ?? 'redirect',
      idp_certificates: parseCertificates(input.idp_certificates ?? []),
      metadata_url: null,
    };
  }
  const field = input.metadata_url !== undefined ? 'saml.metadata_url' : 'saml.metadata_xml';
  const signingCertificate =
    input.metadata_signing_certificate === undefined
      ? undefined
      : parseCertificates(
          [input.metadata_signing_certificate],
          'saml.metadata_signing_certificate',
        )[0];
  let metadata: Awaited<ReturnType<SamlMetadataReader['read']>>;
  try {
    const xml =
      input.metadata_url !== undefined
        ? await deps.samlMetadata.fetch(
            checkProviderUrl(deps.identityProviderUrls, input.metadata_url, field),
          )
        : (input.metadata_xml ?? '');
    metadata = await deps.samlMetadata.read(xml, {
      signingCertificate,
      now: deps.clock.now(),
    });
  } catch (error) {
    if (!(error instanceof SamlMetadataError)) throw error;
    throw new InvalidRequestError(`The IdP metadata was refused: ${error.message}`, {
      fields: [{ path: field, message: error.message }],
    });
  }
  if (metadata.certificates.length > SSO_LIMITS.certificatesMax) {
    const message = `names ${metadata.certificates.length} signing certificates; at most ${SSO_LIMITS.certificatesMax} are kept`;
    throw new InvalidRequestError(`The IdP metadata ${message}`, {
      fields: [{ path: field, message }],
    });
  }
  return {
    idp_entity_id: metadata.entityId,
    sso_url: checkProviderUrl(deps.identityProviderUrls, metadata.ssoUrl, field),
    sso_binding: metadata.ssoBinding,
    idp_certificates: parseCertificates(metadata.certificates, field),
    metadata_url: input.metadata_url ?? null,
  };
}

/**
 * `PUT /api/v1/organizations/:id/sso`: takes effect at once. Needs the
 * enterprise plan and a verified domain (403). The client secret is sealed
 * before it is stored and is never returned.
 *
 * P223: when `enforce_sso` turns on, the password sessions it forbids from
 * now on end too: the organization's users' and those of every user
 * whose email is in one of its verified domains, in any organization. SSO
 * sessions continue, and so does the session making the change
 * (`actingSessionId`), so an administrator can still undo a configuration
 * whose identity provider does not work.
 */
export async function putSsoConfiguration(
  deps: SsoConfigurationDependencies,
  callerOrgId: string,
  pathOrgId: string,
  input: SsoConfigurationInput,
  actingSessionId: string | null,
): Promise<SsoConfiguration> {
  const organization = await ownOrganization(deps, callerOrgId, pathOrgId);
  requireEnterprise(organization);
  const domains = await deps.ssoRepository.listDomains(pathOrgId);
  if (!domains.some((domain) => domain.status === 'verified')) {
    throw new RequestRefusedError('SSO needs a verified domain first (POST …/sso/domains)', {
      reason: 'verified_domain_required',
    });
  }
  const existing = await deps.ssoRepository.getConfiguration(pathOrgId);
  const now = deps.clock.now().toISOString();
  const common = {
    org_id: pathOrgId,
    enforce_sso: input.enforce_sso,
    attribute_mapping: {
      email: input.attribute_mapping?.email ?? DEFAULT_EMAIL_ATTRIBUTE[input.protocol],
    },
    provision_role: input.provision_role ?? null,
    created_at: existing?.created_at ?? now,
    updated_at: now,
  };
  let stored: StoredSsoConfiguration;
  if (input.protocol === 'saml') {
    stored = {
      ...common,
      protocol: 'saml',
      oidc: null,
      client_secret_sealed: null,
      saml: await samlSettings(deps, input.saml),
    };
  } else {
    const issuer = checkProviderUrl(deps.identityProviderUrls, issuerOf(input.oidc), 'oidc.issuer');
    let sealed = existing?.client_secret_sealed ?? null;
    if (input.oidc.client_secret !== undefined) {
      sealed = await deps.secretSealer.seal(
        input.oidc.client_secret,
        clientSecretContext(pathOrgId),
      );
    }
    if (sealed === null) {
      throw new InvalidRequestError('The OIDC client secret is required the first time', {
        fields: [{ path: 'oidc.client_secret', message: 'required' }],
      });
    }
    stored = {
      ...common,
      protocol: 'oidc',
      oidc: {
        issuer,
        client_id: input.oidc.client_id,
        preset: input.oidc.preset ?? null,
        scopes: [...new Set(input.oidc.scopes ?? [])],
      },
      client_secret_sealed: sealed,
      saml: null,
    };
  }
  await deps.ssoRepository.putConfiguration(stored);
  if (stored.enforce_sso && !existing?.enforce_sso) {
    // Set once the configuration is stored, which refuses every later password sign-in.
    const cutoff = { at: deps.clock.now().getTime(), keptSessionId: actingSessionId };
    await Promise.all([
      deps.passwordSessionCutoffs.endForOrganization(pathOrgId, cutoff),
      ...domains
        .filter((domain) => domain.status === 'verified')
        .map((domain) => deps.passwordSessionCutoffs.endForDomain(domain.domain, cutoff)),
    ]);
  }
  return configurationView(stored);
}

export async function deleteSsoConfiguration(
  deps: SsoConfigurationDependencies,
  callerOrgId: string,
  pathOrgId: string,
): Promise<void> {
  await ownOrganization(deps, callerOrgId, pathOrgId);
  if (!(await deps.ssoRepository.deleteConfiguration(pathOrgId))) {
    throw new NotFoundError('SSO is not configured for this organization');
  }
}

/** A path or body domain, normalized; 400 naming `field` when it is not a domain name. */
export function parseDomain(raw: string, field: string): string {
  const domain = normalizeDomain(raw);
  if (!domain) {
    throw new InvalidRequestError(`${raw.slice(0, 100)} is not a domain name`, {
      fields: [{ path: field, message: 'must be a domain name such as example.com' }],
    });
  }
  return domain;
}

export async function listSsoDomains(
  deps: Pick<DomainVerificationDependencies, 'organizations' | 'ssoRepository'>,
  callerOrgId: string,
  pathOrgId: string,
): Promise<SsoDomain[]> {
  await ownOrganization(deps, callerOrgId, pathOrgId);
  const domains = await deps.ssoRepository.listDomains(pathOrgId);
  return domains.sort((a, b) => a.domain.localeCompare(b.domain));
}

/**
 * A domain to verify. The answer carries the TXT record to publish:
 * `_svc-verification.<domain>` = `svc-domain-verification=<token>`.
 */
export async function addSsoDomain(
  deps: Pick<DomainVerificationDependencies, 'organizations' | 'ssoRepository' | 'clock'>,
  callerOrgId: string,
  pathOrgId: string,
  rawDomain: string,
): Promise<SsoDomain> {
  const organization = await ownOrganization(deps, callerOrgId, pathOrgId);
  requireEnterprise(organization);
  const domain = parseDomain(rawDomain, 'domain');
  const existing = await deps.ssoRepository.listDomains(pathOrgId);
  if (existing.length >= SSO_LIMITS.domainsMax) {
    throw new ConflictError(`An organization has at most ${SSO_LIMITS.domainsMax} SSO domains`);
  }
  const token = randomBytes(24).toString('base64url');
  const record: SsoDomain = {
    domain,
    status: 'pending',
    txt_record: verificationRecord(domain, token),
    created_at: deps.clock.now().toISOString(),
    verified_at: null,
    checked_at: null,
    last_error: null,
    unverified_at: null,
  };
  if (!(await deps.ssoRepository.addDomain(pathOrgId, record))) {
    throw new ConflictError(`${domain} is already listed`, { domain });
  }
  return record;
}

/**
 * Looks the domain's TXT record up and, when it carries the token,
 * marks the domain verified for this organization (a domain is
 * verified by one organization at a time: 409 for a second one). A record
 * not (yet) there is 409 naming what to publish; DNS failing is 503. A
 * domain a re-check unverified is verified again the same way. P223:
 * under `enforce_sso`, the domain's emails' password sessions end (but the
 * acting session, as in putSsoConfiguration).
 */
export async function verifySsoDomain(
  deps: DomainVerificationDependencies,
  callerOrgId: string,
  pathOrgId: string,
  rawDomain: string,
  actingSessionId: string | null,
): Promise<SsoDomain> {
  const organization = await ownOrganization(deps, callerOrgId, pathOrgId);
  requireEnterprise(organization);
  const domain = parseDomain(rawDomain, 'domain');
  const record = await deps.ssoRepository.getDomain(pathOrgId, domain);
  if (!record) throw new NotFoundError(`No SSO domain ${domain} in this organization`);
  const at = deps.clock.now().toISOString();
  let published: string[];
  try {
    published = await deps.txtResolver.resolveTxt(record.txt_record.name);
  } catch (error) {
    await deps.ssoRepository.recordFailedCheck(pathOrgId, domain, at, 'DNS look-up failed');
    throw new ServiceUnavailableError(
      `The DNS look-up of ${record.txt_record.name} failed; try again shortly`,
      30,
      { cause: error },
    );
  }
  if (!published.some((value) => value.trim() === record.txt_record.value)) {
    const reason = `No TXT record ${record.txt_record.name} with the verification value`;
    await deps.ssoRepository.recordFailedCheck(pathOrgId, domain, at, reason);
    throw new ConflictError(`${reason}: publish it, then verify again`, {
      reason: 'txt_record_not_found',
      txt_record: record.txt_record,
    });
  }
  // The first re-check a day after this verification.
  const nextCheckAt = new Date(Date.parse(at) + DOMAIN_RECHECK.intervalMs).toISOString();
  if (!(await deps.ssoRepository.markVerified(pathOrgId, domain, at, nextCheckAt))) {
    throw new ConflictError(`${domain} is verified by another organization`, {
      reason: 'domain_taken',
    });
  }
  // P223: enforcement now covers this domain's emails; their password sessions end.
  if ((await deps.ssoRepository.getConfiguration(pathOrgId))?.enforce_sso) {
    await deps.passwordSessionCutoffs.endForDomain(domain, {
      at: deps.clock.now().getTime(),
      keptSessionId: actingSessionId,
    });
  }
  return {
    ...record,
    status: 'verified',
    verified_at: at,
    checked_at: at,
    last_error: null,
    unverified_at: null,
  };
}

export async function deleteSsoDomain(
  deps: Pick<DomainVerificationDependencies, 'organizations' | 'ssoRepository'>,
  callerOrgId: string,
  pathOrgId: string,
  rawDomain: string,
): Promise<void> {
  await ownOrganization(deps, callerOrgId, pathOrgId);
  const domain = parseDomain(rawDomain, 'domain');
  if (!(await deps.ssoRepository.deleteDomain(pathOrgId, domain))) {
    throw new NotFoundError(`No SSO domain ${domain} in this organization`);
  }
}
