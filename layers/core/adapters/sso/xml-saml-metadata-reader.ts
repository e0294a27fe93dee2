import { X509Certificate } from 'node:crypto';
import { SAML_METADATA_LIMITS } from '../../domain/sso';
import {
  type SamlBinding,
  type SamlIdentityProviderMetadata,
  SamlMetadataError,
  type SamlMetadataReader,
} from '../../ports/identity-provider.port';
import { guardedFetch, OutboundRequestError } from '../net/guarded-fetch';
import { checkFetchedProviderUrl } from '../net/identity-provider-urls';
import type { OutboundPolicy } from '../net/outbound-policy';

type XmlCrypto = typeof import('xml-crypto');

/** The W3C DOM as far as this reader uses it (xmldom implements it). */
interface XmlNode {
  readonly nodeType: number;
  readonly firstChild: XmlNode | null;
  readonly nextSibling: XmlNode | null;
  readonly textContent: string | null;
}
interface Element extends XmlNode {
  readonly namespaceURI: string | null;
  readonly localName: string;
  getAttribute(name: string): string | null;
  getElementsByTagNameNS(
    namespace: string,
    localName: string,
  ): { readonly length: number; item(index: number): XmlNode | null };
}
interface XmlDom {
  readonly DOMParser: new (options: {
    readonly locator: object;
    readonly errorHandler: Record<'warning' | 'error' | 'fatalError', (message: string) => void>;
  }) => {
    parseFromString(
      xml: string,
      type: string,
    ): { readonly documentElement: Element | null; readonly doctype: XmlNode | null };
  };
}

/** SAML Metadata §2 and XML Signature's namespaces, and the protocol an IdP must support. */
const METADATA = 'urn:oasis:names:tc:SAML:2.0:metadata';
const SIGNATURE = 'http://www.w3.org/2000/09/xmldsig#';
const SAML2_PROTOCOL = 'urn:oasis:names:tc:SAML:2.0:protocol';
/** The browser bindings the service can send an AuthnRequest by, preferred first. */
const BINDINGS: ReadonlyArray<readonly [string, SamlBinding]> = [
  ['urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect', 'redirect'],
  ['urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST', 'post'],
];

const childrenOf = (parent: Element, localName: string): Element[] => {
  const found: Element[] = [];
  for (let node = parent.firstChild; node; node = node.nextSibling) {
    const element = node as Element;
    if (
      element.nodeType === 1 &&
      element.namespaceURI === METADATA &&
      element.localName === localName
    ) {
      found.push(element);
    }
  }
  return found;
};

/**
 * An IdP's SAML 2.0 metadata read with @xmldom/xmldom (the XML
 * parser node-saml and xml-crypto already use), never by patterns over the
 * text: the entity id, the SSO URL (HTTP-Redirect preferred, else
 * HTTP-POST) and every signing certificate, so a rollover's new and old
 * certificates are both trusted. A DOCTYPE is refused outright (no entity
 * tricks), as are expired metadata (`validUntil`) and documents naming no
 * or several identity providers. When the organization names the
 * certificate its metadata is signed with, the document must carry an
 * enveloped signature over its root that verifies with it (xml-crypto), and
 * only the signed bytes are read (no signature wrapping). The libraries load
 * at the first use: sign-in and configuration reads never pay for them.
 */
export class XmlSamlMetadataReader implements SamlMetadataReader {
  readonly #policy: OutboundPolicy;
  readonly #fetch: ReturnType<typeof guardedFetch>;
  #xmldom: Promise<XmlDom> | undefined;
  #xmlCrypto: Promise<XmlCrypto> | undefined;

  constructor(policy: OutboundPolicy) {
    this.#policy = policy;
    this.#fetch = guardedFetch(policy, {
      timeoutMs: SAML_METADATA_LIMITS.fetchTimeoutMs,
      maxBytes: SAML_METADATA_LIMITS.maxBytes,
    });
  }

  async fetch(url: string): Promise<string> {
    const check = await checkFetchedProviderUrl(url, this.#policy);
    if (!check.ok) throw new SamlMetadataError(check.reason);
    let response: Response;
    try {
      response = await this.#fetch(url, {
        headers: { Accept: 'application/samlmetadata+xml, application/xml, text/xml' },
      });
    } catch (error) {
      if (error instanceof OutboundRequestError) throw new SamlMetadataError(error.message);
      throw error;
    }
    if (response.status !== 200) {
      throw new SamlMetadataError(`the metadata URL answered ${response.status}, not 200`);
    }
    return response.text();
  }

  async read(
    xml: string,
    options: { readonly signingCertificate?: string | undefined; readonly now: Date },
  ): Promise<SamlIdentityProviderMetadata> {
    if (Buffer.byteLength(xml) > SAML_METADATA_LIMITS.maxBytes) {
      throw new SamlMetadataError(
        `metadata larger than ${SAML_METADATA_LIMITS.maxBytes / 1024} KB`,
      );
    }
    let root = await this.#parse(xml);
    if (options.signingCertificate !== undefined) {
      root = await this.#parse(await this.#signedRoot(xml, root, options.signingCertificate));
    }
    return this.#identityProvider(root, options.now);
  }

  async #parse(xml: string): Promise<Element> {
    // Typed by XmlDom above: xmldom's own declarations pull in the browser's DOM
    // library, whose fetch types clash with Node's across the whole program.
    // The specifier stays a literal for the bundler.
    this.#xmldom ??= import('@xmldom/xmldom' as string) as Promise<XmlDom>;
    const { DOMParser } = await this.#xmldom;
    const problems: string[] = [];
    const record = (message: string) => problems.push(String(message).split('\n')[0] ?? '');
    const document = new DOMParser({
      locator: {},
      // xmldom reports an unclosed element only as a warning: metadata is held to well-formedness.
      errorHandler: { warning: record, error: record, fatalError: record },
    }).parseFromString(xml, 'text/xml');
    if (problems.length > 0 || !document?.documentElement) {
      throw new SamlMetadataError(`not well-formed XML (${problems[0] ?? 'no root element'})`);
    }
    if (document.doctype) throw new SamlMetadataError('metadata must not contain a DOCTYPE');
    return document.documentElement;
  }

  /** The root as signed: verified against the organization's certificate, then re-read from the signed bytes. */
  async #signedRoot(xml: string, root: Element, certificate: string): Promise<string> {
    this.#xmlCrypto ??= import('xml-crypto');
    const { SignedXml } = await this.#xmlCrypto;
    const signatures: Element[] = [];
    for (let node = root.firstChild; node; node = node.nextSibling) {
      const element = node as Element;
      if (
        element.nodeType === 1 &&
        element.namespaceURI === SIGNATURE &&
        element.localName === 'Signature'
      ) {
        signatures.push(element);
      }
    }
    if (signatures.length !== 1) {
      throw new SamlMetadataError(
        signatures.length === 0
          ? 'metadata is not signed, and a signing certificate was given'
          : 'metadata carries several signatures on its root',
      );
    }
    const verifier = new SignedXml({ publicCert: certificate, getCertFromKeyInfo: () => null });
    let valid = false;
    try {
      verifier.loadSignature(
        signatures[0] as unknown as Parameters<typeof verifier.loadSignature>[0],
      );
      valid = verifier.checkSignature(xml);
    } catch {
      valid = false;
    }
    const rootId = root.getAttribute('ID');
    const references = verifier.getReferences();
    const coversRoot =
      references.length === 1 &&
      (references[0]?.uri === '' ||
        (rootId !== null && rootId !== '' && references[0]?.uri === `#${rootId}`));
    const signed = verifier.getSignedReferences();
    if (!valid || !coversRoot || signed.length !== 1 || signed[0] === undefined) {
      throw new SamlMetadataError('metadata signature does not verify with the given certificate');
    }
    return signed[0];
  }

  #identityProvider(root: Element, now: Date): SamlIdentityProviderMetadata {
    if (root.namespaceURI !== METADATA) {
      throw new SamlMetadataError('not SAML 2.0 metadata (the root is not an md:EntityDescriptor)');
    }
    expiryCheck(root, now);
    let entities: Element[];
    if (root.localName === 'EntityDescriptor') entities = [root];
    else if (root.localName === 'EntitiesDescriptor')
      entities = childrenOf(root, 'EntityDescriptor');
    else
      throw new SamlMetadataError('not SAML 2.0 metadata (the root is not an md:EntityDescriptor)');
    const providers = entities.flatMap((entity) =>
      childrenOf(entity, 'IDPSSODescriptor')
        .filter((descriptor) =>
          (descriptor.getAttribute('protocolSupportEnumeration') ?? '')
            .split(/\s+/)
            .includes(SAML2_PROTOCOL),
        )
        .map((descriptor) => ({ entity, descriptor })),
    );
    if (providers.length !== 1 || !providers[0]) {
      throw new SamlMetadataError(
        providers.length === 0
          ? 'the metadata describes no SAML 2.0 identity provider (IDPSSODescriptor)'
          : `the metadata describes ${providers.length} identity providers: give the one to trust`,
      );
    }
    const { entity, descriptor } = providers[0];
    expiryCheck(entity, now);
    const entityId = entity.getAttribute('entityID') ?? '';
    if (entityId === '' || entityId.length > 500) {
      throw new SamlMetadataError(
        'the EntityDescriptor has no entityID (or one over 500 characters)',
      );
    }
    return { entityId, ...singleSignOn(descriptor), certificates: signingCertificates(descriptor) };
  }
}

/** SAML Metadata §2.3.2: `validUntil` past is metadata no longer to be trusted. */
function expiryCheck(element: Element, now: Date): void {
  const validUntil = element.getAttribute('validUntil');
  if (!validUntil) return;
  const until = Date.parse(validUntil);
  if (Number.isNaN(until))
    throw new SamlMetadataError(`validUntil is not a date (${validUntil.slice(0, 40)})`);
  if (until <= now.getTime()) throw new SamlMetadataError(`the metadata expired at ${validUntil}`);
}

function singleSignOn(descriptor: Element): { ssoUrl: string; ssoBinding: SamlBinding } {
  const services = childrenOf(descriptor, 'SingleSignOnService');
  for (const [binding, name] of BINDINGS) {
    const service = services.find((element) => element.getAttribute('Binding') === binding);
    const location = service?.getAttribute('Location') ?? '';
    if (location !== '') return { ssoUrl: location, ssoBinding: name };
  }
  throw new SamlMetadataError(
    'the identity provider offers no SingleSignOnService with the HTTP-Redirect or HTTP-POST binding',
  );
}

/** KeyDescriptors for signing (`use` absent means both uses), each X509Certificate parsed before it is kept. */
function signingCertificates(descriptor: Element): string[] {
  const certificates: string[] = [];
  for (const key of childrenOf(descriptor, 'KeyDescriptor')) {
    const use = key.getAttribute('use');
    if (use && use !== 'signing') continue;
    const values = key.getElementsByTagNameNS(SIGNATURE, 'X509Certificate');
    for (let index = 0; index < values.length; index += 1) {
      const base64 = (values.item(index)?.textContent ?? '').replace(/\s+/g, '');
      try {
        new X509Certificate(Buffer.from(base64, 'base64'));
      } catch {
        throw new SamlMetadataError(
          'a signing KeyDescriptor holds something that is not an X.509 certificate',
        );
      }
      if (!certificates.includes(base64)) certificates.push(base64);
    }
  }
  if (certificates.length === 0) {
    throw new SamlMetadataError(
      'the identity provider names no signing certificate (KeyDescriptor)',
    );
  }
  return certificates;
}
