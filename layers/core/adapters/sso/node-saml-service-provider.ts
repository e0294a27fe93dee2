import type { CacheProvider, SAML } from '@node-saml/node-saml';
import { SsoAuthenticationFailedError } from '../../domain/errors';
import type {
  SamlAuthorization,
  SamlIdentity,
  SamlServiceProvider,
  SamlTrust,
} from '../../ports/identity-provider.port';
import { responseIssuerOf } from './saml-response-issuer';

type NodeSaml = typeof import('@node-saml/node-saml');

/** What is read of a verified assertion, as node-saml's xml2js parse gives it. */
interface ParsedAssertion {
  readonly $?: { readonly ID?: string };
  readonly Issuer?: ReadonlyArray<{ readonly _?: string }>;
  readonly Conditions?: ReadonlyArray<{ readonly $?: { readonly NotOnOrAfter?: string } }>;
  readonly Subject?: ReadonlyArray<{
    readonly SubjectConfirmation?: ReadonlyArray<{
      readonly SubjectConfirmationData?: ReadonlyArray<{
        readonly $?: { readonly Recipient?: string };
      }>;
    }>;
  }>;
}

/** Clock skew tolerated on NotBefore / NotOnOrAfter (node-saml checks them). */
const CLOCK_SKEW_MS = 60_000;
/** How long a request id is expected back: the SSO flow's own lifetime. */
const REQUEST_LIFETIME_MS = 10 * 60 * 1000;

/**
 * SSO's SAML 2.0 service provider through `@node-saml/node-saml`:
 * SP-initiated (HTTP-Redirect AuthnRequest, HTTP-POST Response), assertions
 * must be signed by one of the IdP's certificates (the library verifies with
 * xml-crypto; nothing here reads a signature), audience = our entity id,
 * recipient = our ACS URL, NotBefore/NotOnOrAfter within a minute, the
 * Response's and the Assertion's Issuer both exactly the IdP's entity id
 * (P219: checked here, node-saml compares `idpIssuer` on logout messages
 * only), and `InResponseTo` exactly the request this flow sent. The library
 * (and its XML stack) loads at the first SAML request, not at init: OIDC and
 * configuration requests never pay for it.
 */
export class NodeSamlServiceProvider implements SamlServiceProvider {
  #library: Promise<NodeSaml> | undefined;

  async authorization(
    trust: SamlTrust,
    requestId: string,
    relayState: string,
  ): Promise<SamlAuthorization> {
    const saml = await this.#saml(trust, { generateUniqueId: () => requestId });
    if (trust.idpSsoBinding === 'redirect') {
      return {
        binding: 'redirect',
        location: await saml.getAuthorizeUrlAsync(relayState, undefined, {}),
      };
    }
    // SAML Bindings §3.5: the request base64-encoded (not deflated) in a form field; the page is ours.
    const message = await saml.getAuthorizeMessageAsync(relayState, undefined, {});
    const fields: Record<string, string> = {};
    for (const [name, value] of Object.entries(message)) {
      if (typeof value === 'string') fields[name] = value;
    }
    return { binding: 'post', action: trust.idpSsoUrl, fields };
  }

  async validateResponse(
    trust: SamlTrust,
    samlResponse: string,
    expectedRequestId: string,
  ): Promise<SamlIdentity> {
    const saml = await this.#saml(trust, { expectedRequestId });
    let profile: Awaited<ReturnType<SAML['validatePostResponseAsync']>>['profile'];
    try {
      ({ profile } = await saml.validatePostResponseAsync({ SAMLResponse: samlResponse }));
    } catch (error) {
      throw new SsoAuthenticationFailedError(`SAML response refused: ${(error as Error).message}`);
    }
    if (!profile?.nameID || !profile.inResponseTo) {
      throw new SsoAuthenticationFailedError('SAML response without a subject');
    }
    // The assertion as verified (xml2js form): its id, lifetime and bearer recipient.
    const assertion = (profile.getAssertion?.() as { Assertion?: ParsedAssertion } | undefined)
      ?.Assertion;
    const assertionId = assertion?.$?.ID;
    if (!assertionId) throw new SsoAuthenticationFailedError('SAML assertion without an ID');
    // P219: the signed assertion names the configured IdP; one signed with its
    // certificate under another entity id (a certificate shared by several
    // IdPs, a test IdP) is not this trust's.
    const assertionIssuer = assertion?.Issuer?.[0]?._;
    if (assertionIssuer !== trust.idpEntityId) {
      throw new SsoAuthenticationFailedError(
        `SAML assertion from another issuer (${String(assertionIssuer).slice(0, 200)})`,
      );
    }
    let responseIssuer: string | null;
    try {
      responseIssuer = responseIssuerOf(profile.getSamlResponseXml?.() ?? '');
    } catch (error) {
      throw new SsoAuthenticationFailedError(`SAML response refused: ${(error as Error).message}`);
    }
    // SAML Core 3.2.2: the Response's Issuer is optional; when present it must be the IdP too.
    if (responseIssuer !== null && responseIssuer !== trust.idpEntityId) {
      throw new SsoAuthenticationFailedError(
        `SAML response from another issuer (${responseIssuer.slice(0, 200)})`,
      );
    }
    // SAML Core 2.4.1.2 (node-saml does not check it): the bearer confirmation names our ACS.
    const recipient =
      assertion?.Subject?.[0]?.SubjectConfirmation?.[0]?.SubjectConfirmationData?.[0]?.$?.Recipient;
    if (recipient !== trust.acsUrl) {
      throw new SsoAuthenticationFailedError(`SAML assertion for another recipient (${recipient})`);
    }
    const notOnOrAfter = assertion?.Conditions?.[0]?.$?.NotOnOrAfter;
    const { issuer: _issuer, nameID, inResponseTo, ...attributes } = profile;
    return {
      issuer: assertionIssuer,
      assertionId,
      inResponseTo: String(inResponseTo),
      nameId: String(nameID),
      attributes,
      notOnOrAfter: notOnOrAfter ? Math.ceil(Date.parse(notOnOrAfter) / 1000) : null,
    };
  }

  async metadata(trust: SamlTrust): Promise<string> {
    const saml = await this.#saml(trust, {});
    return saml.generateServiceProviderMetadata(null, null);
  }

  async #saml(
    trust: SamlTrust,
    options: { generateUniqueId?: () => string; expectedRequestId?: string },
  ): Promise<SAML> {
    this.#library ??= import('@node-saml/node-saml');
    const { SAML: Saml, ValidateInResponseTo } = await this.#library;
    // The flow (a DynamoDB item taken once, within its 10 minutes) is the memory
    // of requests sent: the library only learns which one this response may
    // answer. Its value is read as the request's time; the flow's expiry
    // already bounds that, so "now" passes the library's own age check.
    const cacheProvider: CacheProvider = {
      saveAsync: async (_key, value) => ({ value, createdAt: Date.now() }),
      getAsync: async (key) =>
        key === options.expectedRequestId ? new Date().toISOString() : null,
      removeAsync: async () => null,
    };
    return new Saml({
      callbackUrl: trust.acsUrl,
      entryPoint: trust.idpSsoUrl,
      authnRequestBinding: trust.idpSsoBinding === 'post' ? 'HTTP-POST' : 'HTTP-Redirect',
      // SAML Bindings §3.5.4: a posted message is base64 of the XML itself; only the redirect deflates it.
      skipRequestCompression: trust.idpSsoBinding === 'post',
      issuer: trust.spEntityId,
      audience: trust.spEntityId,
      idpIssuer: trust.idpEntityId,
      idpCert: [...trust.idpCertificates],
      wantAssertionsSigned: true,
      wantAuthnResponseSigned: false,
      validateInResponseTo: ValidateInResponseTo.always,
      requestIdExpirationPeriodMs: REQUEST_LIFETIME_MS,
      acceptedClockSkewMs: CLOCK_SKEW_MS,
      cacheProvider,
      identifierFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
      disableRequestedAuthnContext: true,
      ...(options.generateUniqueId ? { generateUniqueId: options.generateUniqueId } : {}),
    });
  }
}
