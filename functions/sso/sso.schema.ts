import * as z from 'zod/mini';
import {
  OIDC_PRESETS,
  SAML_METADATA_LIMITS,
  SSO_LIMITS,
  SSO_RETURN_PATH_PATTERN,
} from '../../layers/core/domain/sso';
import { ROLES } from '../../layers/core/domain/user';
import { paginationQuery } from '../../layers/core/http/pagination.schema';

const presets = Object.keys(OIDC_PRESETS) as [keyof typeof OIDC_PRESETS];

/** RFC 6749 §3.3: a scope token is printable ASCII without space, `"` or `\`. */
const scopeToken = z
  .string()
  .check(z.regex(/^[\x21\x23-\x5B\x5D-\x7E]{1,100}$/, 'must be one scope token'));

/**
 * `PUT /api/v1/organizations/:id/sso`, OIDC: a preset (Google,
 * Microsoft with its tenant) or an issuer, the client's id and secret (the
 * secret is required the first time and never returned), extra scopes.
 */
const oidcConfigurationBody = z.strictObject({
  protocol: z.literal('oidc'),
  enforce_sso: z._default(z.boolean(), false),
  oidc: z.strictObject({
    preset: z.optional(z.enum(presets)),
    tenant: z.optional(
      z
        .string()
        .check(z.regex(/^[A-Za-z0-9][A-Za-z0-9.-]{0,99}$/, 'must be a tenant id or domain')),
    ),
    issuer: z.optional(z.url({ protocol: /^https?$/ }).check(z.maxLength(500))),
    client_id: z.string().check(z.minLength(1), z.maxLength(500)),
    client_secret: z.optional(z.string().check(z.minLength(1), z.maxLength(2000))),
    scopes: z.optional(z.array(scopeToken).check(z.maxLength(20))),
  }),
  /** SSO's attribute mapping: the ID token claim that carries the email (default `email`). */
  attribute_mapping: z.optional(
    z.strictObject({ email: z.string().check(z.minLength(1), z.maxLength(200)) }),
  ),
  /** The role of users created at their first SSO sign-in; null (default) refuses unknown users. */
  provision_role: z.optional(z.nullable(z.enum(ROLES))),
});

/**
 * SAML 2.0: the IdP's entity id, its single sign-on URL and
 * the certificate(s) it signs with, given by hand; or its metadata, pasted
 * (`metadata_xml`) or where to fetch it (`metadata_url`), which those are
 * read from. Exactly one of the three ways (the use case says which fields
 * clash). `metadata_signing_certificate`: the metadata must be signed with
 * it. The email is the NameID unless `attribute_mapping.email` names an
 * attribute.
 */
const samlConfigurationBody = z.strictObject({
  protocol: z.literal('saml'),
  enforce_sso: z._default(z.boolean(), false),
  saml: z.strictObject({
    idp_entity_id: z.optional(z.string().check(z.minLength(1), z.maxLength(500))),
    sso_url: z.optional(z.url({ protocol: /^https?$/ }).check(z.maxLength(2000))),
    /** The binding `sso_url` takes when given by hand (default redirect). */
    sso_binding: z.optional(z.enum(['redirect', 'post'])),
    idp_certificates: z.optional(
      z
        .array(z.string().check(z.minLength(1), z.maxLength(10_000)))
        .check(z.minLength(1), z.maxLength(SSO_LIMITS.certificatesMax)),
    ),
    metadata_xml: z.optional(
      z.string().check(z.minLength(1), z.maxLength(SAML_METADATA_LIMITS.maxBytes)),
    ),
    metadata_url: z.optional(z.url({ protocol: /^https?$/ }).check(z.maxLength(2000))),
    metadata_signing_certificate: z.optional(z.string().check(z.minLength(1), z.maxLength(10_000))),
  }),
  attribute_mapping: z.optional(
    z.strictObject({ email: z.string().check(z.minLength(1), z.maxLength(200)) }),
  ),
  provision_role: z.optional(z.nullable(z.enum(ROLES))),
});

/** `PUT /api/v1/organizations/:id/sso`: OIDC or SAML, by `protocol`. */
export const ssoConfigurationBody = z.discriminatedUnion('protocol', [
  oidcConfigurationBody,
  samlConfigurationBody,
]);

/** The IdP's HTTP-POST (SAML Bindings §3.5): the response, and the RelayState we sent. */
export const samlPostBody = z.object({
  SAMLResponse: z.string().check(z.minLength(1), z.maxLength(500_000)),
  RelayState: z.optional(z.string().check(z.maxLength(200))),
});

export const addDomainBody = z.strictObject({
  domain: z.string().check(z.minLength(1), z.maxLength(253)),
});

export const listDomainsQuery = z.strictObject(paginationQuery);

/**
 * `GET /api/v1/sso/start`: the organization, or an email whose verified
 * domain names it; `next`, where to land once signed in.
 */
export const startQuery = z.strictObject({
  org_id: z.optional(z.string().check(z.maxLength(100))),
  email: z.optional(z.string().check(z.maxLength(254))),
  next: z.optional(
    z
      .string()
      .check(
        z.regex(
          SSO_RETURN_PATH_PATTERN,
          'must be a path on this service (one leading /, no backslash), at most 500 characters',
        ),
      ),
  ),
});

/** The provider's redirect back (OAuth 2.0 §4.1.2): a code or an error, and our state. */
export const oidcCallbackQuery = z.object({
  state: z.optional(z.string().check(z.maxLength(200))),
  code: z.optional(z.string().check(z.maxLength(2000))),
  error: z.optional(z.string().check(z.maxLength(200))),
});

export const ssoConfigurationResource = z.object({
  org_id: z.string(),
  protocol: z.enum(['oidc', 'saml']),
  enforce_sso: z.boolean(),
  oidc: z.nullable(
    z.object({
      issuer: z.string(),
      client_id: z.string(),
      preset: z.nullable(z.enum(presets)),
      scopes: z.array(z.string()),
      /** The secret itself is never returned. */
      client_secret_set: z.boolean(),
    }),
  ),
  saml: z.nullable(
    z.object({
      idp_entity_id: z.string(),
      sso_url: z.string(),
      idp_certificates: z.array(z.string()),
      sso_binding: z.enum(['redirect', 'post']),
      metadata_url: z.nullable(z.string()),
    }),
  ),
  attribute_mapping: z.object({ email: z.string() }),
  provision_role: z.nullable(z.enum(ROLES)),
  /** OIDC: register this as the redirect URI at the identity provider. */
  redirect_uri: z.string(),
  /** SAML: our entity id (the audience) and ACS URL, one address; GET it for our SP metadata. */
  saml_service_provider: z.object({ entity_id: z.string(), acs_url: z.string() }),
  /** Where a browser starts signing in to this organization. */
  sign_in_url: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});

export const ssoDomainResource = z.object({
  domain: z.string(),
  /** `unverified` when the daily re-check found the record gone (verify again to restore it). */
  status: z.enum(['pending', 'verified', 'unverified']),
  /** Publish this TXT record, then `POST …/domains/:domain/verify`. */
  txt_record: z.object({ name: z.string(), value: z.string() }),
  created_at: z.string(),
  verified_at: z.nullable(z.string()),
  checked_at: z.nullable(z.string()),
  last_error: z.nullable(z.string()),
  /** When a re-check found the record gone (`last_error` says what it found). */
  unverified_at: z.nullable(z.string()),
});

export const ssoDomainList = z.object({
  domains: z.array(ssoDomainResource).check(z.maxLength(SSO_LIMITS.domainsMax)),
  total: z.int(),
  limit: z.int(),
  offset: z.int(),
});
