import { X509Certificate } from 'node:crypto';
import { webhookPolicy } from '../../../../layers/core/adapters/net/outbound-policy';
import { XmlSamlMetadataReader } from '../../../../layers/core/adapters/sso/xml-saml-metadata-reader';
import { SamlMetadataError } from '../../../../layers/core/ports/identity-provider.port';
import {
  IDP_CERT,
  IDP_KEY,
  IDP_NEXT_CERT,
  IDP_NEXT_KEY,
  idpMetadata,
} from '../../../support/saml-idp';

const reader = new XmlSamlMetadataReader(webhookPolicy({ allowPrivateAddresses: false }));
const now = new Date('2026-11-27T12:00:00Z');
const ENTITY = 'https://idp.example.test/metadata';
const der = (pem: string) => new X509Certificate(pem).raw.toString('base64');

async function refusal(xml: string, signingCertificate?: string): Promise<string> {
  const error = await reader
    .read(xml, { now, signingCertificate })
    .catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(SamlMetadataError);
  return (error as Error).message;
}

describe('XmlSamlMetadataReader (P272)', () => {
  it('reads the entity id, the redirect SSO URL and the signing certificate', async () => {
    const xml = idpMetadata({
      entityId: ENTITY,
      sso: { post: 'https://idp.example.test/sso/post', redirect: 'https://idp.example.test/sso' },
    });
    await expect(reader.read(xml, { now })).resolves.toEqual({
      entityId: ENTITY,
      ssoUrl: 'https://idp.example.test/sso',
      ssoBinding: 'redirect',
      certificates: [der(IDP_CERT)],
    });
  });

  it('takes the HTTP-POST binding when the IdP offers only that (P273)', async () => {
    const xml = idpMetadata({ entityId: ENTITY, sso: { post: 'https://idp.example.test/post' } });
    await expect(reader.read(xml, { now })).resolves.toMatchObject({
      ssoUrl: 'https://idp.example.test/post',
      ssoBinding: 'post',
    });
  });

  it('keeps every signing certificate of a rollover', async () => {
    const xml = idpMetadata({
      entityId: ENTITY,
      sso: { redirect: 'https://idp.example.test/sso' },
      certificates: [IDP_CERT, IDP_NEXT_CERT],
    });
    const read = await reader.read(xml, { now });
    expect(read.certificates).toEqual([der(IDP_CERT), der(IDP_NEXT_CERT)]);
  });

  it('reads metadata whatever prefixes the IdP chose, by namespace', async () => {
    const xml = idpMetadata({ entityId: ENTITY, sso: { redirect: 'https://idp.example.test/sso' } })
      .replaceAll('md:', 'saml2md:')
      .replace('xmlns:saml2md=', 'xmlns:saml2md=')
      .replace('xmlns:md=', 'xmlns:saml2md=');
    await expect(reader.read(xml, { now })).resolves.toMatchObject({ entityId: ENTITY });
  });

  it('takes the one identity provider of an EntitiesDescriptor, and refuses a choice of several', async () => {
    const one = idpMetadata({
      entityId: ENTITY,
      sso: { redirect: 'https://idp.example.test/sso' },
    });
    const wrap = (inner: string) =>
      `<md:EntitiesDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata">${inner}</md:EntitiesDescriptor>`;
    await expect(reader.read(wrap(one), { now })).resolves.toMatchObject({ entityId: ENTITY });
    const other = idpMetadata({
      entityId: 'https://other.example.test/',
      sso: { redirect: 'https://other.example.test/sso' },
    });
    expect(await refusal(wrap(one + other))).toBe(
      'the metadata describes 2 identity providers: give the one to trust',
    );
  });

  it.each([
    ['not XML', 'this is not xml', /^not well-formed XML/],
    [
      'unclosed',
      '<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata">',
      /^not well-formed XML/,
    ],
    ['another document', '<html><body>Sign in</body></html>', /not SAML 2.0 metadata/],
    [
      'a DOCTYPE',
      '<!DOCTYPE x [<!ENTITY a "aaaa">]><md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="x"/>',
      /DOCTYPE/,
    ],
    [
      'a service provider only',
      '<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="x"><md:SPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol"/></md:EntityDescriptor>',
      /no SAML 2.0 identity provider/,
    ],
  ])('refuses %s', async (_name, xml, message) => {
    expect(await refusal(xml)).toMatch(message);
  });

  it('refuses metadata without a browser binding, or without a signing certificate', async () => {
    const noBinding = idpMetadata({ entityId: ENTITY, sso: {} });
    expect(await refusal(noBinding)).toMatch(/HTTP-Redirect or HTTP-POST/);
    const noKey = idpMetadata({
      entityId: ENTITY,
      sso: { redirect: 'https://idp.example.test/sso' },
      certificates: [],
    });
    expect(await refusal(noKey)).toMatch(/no signing certificate/);
  });

  it('refuses a certificate that is not X.509', async () => {
    const xml = idpMetadata({
      entityId: ENTITY,
      sso: { redirect: 'https://idp.example.test/sso' },
    }).replace(/<ds:X509Certificate>[^<]+/, '<ds:X509Certificate>bm90IGEgY2VydGlmaWNhdGU=');
    expect(await refusal(xml)).toMatch(/not an X\.509 certificate/);
  });

  it('refuses expired metadata', async () => {
    const xml = idpMetadata({
      entityId: ENTITY,
      sso: { redirect: 'https://idp.example.test/sso' },
      validUntil: '2026-11-01T00:00:00Z',
    });
    expect(await refusal(xml)).toBe('the metadata expired at 2026-11-01T00:00:00Z');
  });

  it('refuses oversized metadata before parsing it', async () => {
    expect(await refusal(`<x>${'a'.repeat(300 * 1024)}</x>`)).toMatch(/larger than 256 KB/);
  });

  describe('with a signing certificate required', () => {
    const signed = (key: string, cert: string) =>
      idpMetadata({
        entityId: ENTITY,
        sso: { redirect: 'https://idp.example.test/sso' },
        signedWith: { key, cert },
      });

    it('reads metadata signed with that certificate', async () => {
      await expect(
        reader.read(signed(IDP_KEY, IDP_CERT), { now, signingCertificate: IDP_CERT }),
      ).resolves.toMatchObject({ entityId: ENTITY });
    });

    it('refuses unsigned metadata, and metadata signed by another key', async () => {
      const unsigned = idpMetadata({
        entityId: ENTITY,
        sso: { redirect: 'https://idp.example.test/sso' },
      });
      expect(await refusal(unsigned, IDP_CERT)).toMatch(/not signed/);
      expect(await refusal(signed(IDP_NEXT_KEY, IDP_NEXT_CERT), IDP_CERT)).toMatch(
        /does not verify/,
      );
    });

    it('refuses signed metadata altered afterwards', async () => {
      const altered = signed(IDP_KEY, IDP_CERT).replace(
        'https://idp.example.test/sso',
        'https://attacker.example.test/sso',
      );
      expect(await refusal(altered, IDP_CERT)).toMatch(/does not verify/);
    });
  });
});
