import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { SignedXml } from 'xml-crypto';

const FIXTURES = join(__dirname, '..', 'fixtures', 'saml');

/** The test IdP's signing key and certificate (test/fixtures/saml, made with openssl for tests only). */
export const IDP_KEY = readFileSync(join(FIXTURES, 'idp-key.pem'), 'utf8');
export const IDP_CERT = readFileSync(join(FIXTURES, 'idp-cert.pem'), 'utf8');
/** A second pair, as an IdP rolls its signing key over (same origin, tests only). */
export const IDP_NEXT_KEY = readFileSync(join(FIXTURES, 'idp-next-key.pem'), 'utf8');
export const IDP_NEXT_CERT = readFileSync(join(FIXTURES, 'idp-next-cert.pem'), 'utf8');

export interface AuthnRequestSeen {
  readonly id: string;
  readonly acsUrl: string;
  readonly issuer: string;
  readonly relayState: string;
}

/** What an IdP reads of an HTTP-Redirect AuthnRequest (SAML Bindings §3.4): deflated, base64, in the query. */
export function readAuthnRequest(location: string): AuthnRequestSeen {
  const url = new URL(location);
  const xml = inflateRawSync(
    Buffer.from(url.searchParams.get('SAMLRequest') ?? '', 'base64'),
  ).toString();
  const attribute = (name: string) => new RegExp(`${name}="([^"]*)"`).exec(xml)?.[1] ?? '';
  return {
    id: attribute('ID'),
    acsUrl: attribute('AssertionConsumerServiceURL'),
    issuer: /<saml:Issuer[^>]*>([^<]*)</.exec(xml)?.[1] ?? '',
    relayState: url.searchParams.get('RelayState') ?? '',
  };
}

export interface ResponseOptions {
  readonly idpEntityId: string;
  readonly inResponseTo: string;
  readonly recipient: string;
  readonly audience: string;
  readonly email: string;
  /** Seconds from now; negative for an expired assertion. @default 300 */
  readonly validForSeconds?: number;
  /** @default true */
  readonly signed?: boolean;
  readonly assertionId?: string;
  /** The Response's `<Issuer>`; `null` leaves it out (it is optional). @default idpEntityId */
  readonly responseIssuer?: string | null;
  /** The Assertion's `<Issuer>`, which the signature covers. @default idpEntityId */
  readonly assertionIssuer?: string;
}

const iso = (offsetSeconds: number) => new Date(Date.now() + offsetSeconds * 1000).toISOString();

/**
 * A SAML 2.0 Response as an IdP sends it: one assertion (bearer subject
 * confirmation, audience restriction, time conditions), signed with the
 * test key by xml-crypto (enveloped, exclusive c14n, RSA-SHA256).
 */
export function samlResponse(options: ResponseOptions): string {
  const validFor = options.validForSeconds ?? 300;
  const assertionId = options.assertionId ?? `_a${randomBytes(16).toString('hex')}`;
  const issued = validFor > 0 ? iso(0) : iso(validFor - 60);
  const xml = [
    `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_r${randomBytes(16).toString('hex')}" Version="2.0" IssueInstant="${issued}" Destination="${options.recipient}" InResponseTo="${options.inResponseTo}">`,
    options.responseIssuer === null
      ? ''
      : `<saml:Issuer>${options.responseIssuer ?? options.idpEntityId}</saml:Issuer>`,
    '<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>',
    `<saml:Assertion ID="${assertionId}" Version="2.0" IssueInstant="${issued}">`,
    `<saml:Issuer>${options.assertionIssuer ?? options.idpEntityId}</saml:Issuer>`,
    '<saml:Subject>',
    `<saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">${options.email}</saml:NameID>`,
    '<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer">',
    `<saml:SubjectConfirmationData InResponseTo="${options.inResponseTo}" NotOnOrAfter="${iso(validFor)}" Recipient="${options.recipient}"/>`,
    '</saml:SubjectConfirmation>',
    '</saml:Subject>',
    `<saml:Conditions NotBefore="${iso(validFor > 0 ? -60 : validFor - 120)}" NotOnOrAfter="${iso(validFor)}">`,
    `<saml:AudienceRestriction><saml:Audience>${options.audience}</saml:Audience></saml:AudienceRestriction>`,
    '</saml:Conditions>',
    `<saml:AuthnStatement AuthnInstant="${issued}" SessionIndex="_s1"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>`,
    '</saml:Assertion>',
    '</samlp:Response>',
  ].join('');
  if (options.signed === false) return xml;
  const signature = new SignedXml({
    privateKey: IDP_KEY,
    publicCert: IDP_CERT,
    signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  });
  signature.addReference({
    xpath: "//*[local-name(.)='Assertion']",
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
    transforms: [
      'http://www.w3.org/2000/09/xmldsig#enveloped-signature',
      'http://www.w3.org/2001/10/xml-exc-c14n#',
    ],
  });
  signature.computeSignature(xml, {
    location: {
      reference: "//*[local-name(.)='Assertion']/*[local-name(.)='Issuer']",
      action: 'after',
    },
  });
  return signature.getSignedXml();
}

export const base64 = (xml: string) => Buffer.from(xml, 'utf8').toString('base64');

export interface MetadataOptions {
  readonly entityId: string;
  /** The SingleSignOnService endpoints offered: binding (`redirect` or `post`) to location. */
  readonly sso: Partial<Record<'redirect' | 'post', string>>;
  /** PEM certificates for signing (several during a rollover). @default [IDP_CERT] */
  readonly certificates?: readonly string[];
  /** Sign the EntityDescriptor (enveloped, over the whole document) with this key; unsigned when absent. */
  readonly signedWith?: { readonly key: string; readonly cert: string };
  /** `validUntil` on the EntityDescriptor. */
  readonly validUntil?: string;
}

const BINDING_URN = {
  redirect: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect',
  post: 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST',
} as const;

const base64Der = (pem: string) =>
  pem.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');

/** An IdP's SAML 2.0 metadata as IdPs publish it (md: and ds: prefixes, one KeyDescriptor per certificate). */
export function idpMetadata(options: MetadataOptions): string {
  const keys = (options.certificates ?? [IDP_CERT])
    .map(
      (pem) =>
        `<md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${base64Der(pem)}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`,
    )
    .join('');
  const services = (['redirect', 'post'] as const)
    .filter((binding) => options.sso[binding] !== undefined)
    .map(
      (binding) =>
        `<md:SingleSignOnService Binding="${BINDING_URN[binding]}" Location="${options.sso[binding]}"/>`,
    )
    .join('');
  const validUntil = options.validUntil ? ` validUntil="${options.validUntil}"` : '';
  const xml = [
    `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" ID="_m${randomBytes(8).toString('hex')}" entityID="${options.entityId}"${validUntil}>`,
    '<md:IDPSSODescriptor WantAuthnRequestsSigned="false" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">',
    keys,
    '<md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat>',
    services,
    '</md:IDPSSODescriptor>',
    '</md:EntityDescriptor>',
  ].join('');
  if (!options.signedWith) return xml;
  const signature = new SignedXml({
    privateKey: options.signedWith.key,
    publicCert: options.signedWith.cert,
    signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  });
  signature.addReference({
    xpath: "/*[local-name(.)='EntityDescriptor']",
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
    transforms: [
      'http://www.w3.org/2000/09/xmldsig#enveloped-signature',
      'http://www.w3.org/2001/10/xml-exc-c14n#',
    ],
  });
  signature.computeSignature(xml, {
    location: { reference: "/*[local-name(.)='EntityDescriptor']", action: 'prepend' },
  });
  return signature.getSignedXml();
}
