import { X509Certificate } from 'node:crypto';
import { createOrganization } from '../../layers/core/use-cases/organizations/organization-use-cases';
import { type LocalReceiver, startHttpReceiver } from '../integration/net/local-receivers';
import { Browser } from '../support/browser';
import { TestDnsServer } from '../support/dns-server';
import { expectNestedError } from '../support/error-shapes';
import { json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import {
  base64,
  IDP_CERT,
  IDP_KEY,
  IDP_NEXT_CERT,
  idpMetadata,
  samlResponse,
} from '../support/saml-idp';
import { createTestUser, signedIn, type TestUser, type WebSession } from '../support/web-session';

const IDP_ENTITY_ID = 'https://idp.metadata.example/saml';
const IDP_SSO_URL = 'https://idp.metadata.example/sso';
/** A certificate by its fingerprint, however its PEM is wrapped. */
const fingerprint = (certificate: string) => new X509Certificate(certificate).fingerprint256;

/**
 * P272, P273 over HTTP against the real local runtime: an organization
 * configures SAML from its IdP's metadata, pasted or fetched from a URL
 * (a loopback server standing in for the IdP), instead of typing the entity
 * id, SSO URL and certificates; refusals name the field; and an IdP whose
 * metadata offers only the HTTP-POST binding is reached through a form.
 */
describe('SAML configured from IdP metadata (D14, P272, P273)', () => {
  const dns = new TestDnsServer();
  let service: TestService;
  let orgId: string;
  let acsUrl: string;
  let admin: WebSession;
  let member: TestUser;
  let idp: LocalReceiver;
  /** What the loopback IdP serves at /metadata, and with which status. */
  let served = { status: 200, body: '' };
  const domain = `saml-metadata-${Date.now()}.example`;

  const put = (saml: Record<string, unknown>) =>
    admin.request(`/api/v1/organizations/${orgId}/sso`, {
      method: 'PUT',
      body: { protocol: 'saml', enforce_sso: false, saml },
    });
  const refusedField = async (saml: Record<string, unknown>) => {
    const error = expectNestedError(await put(saml), 400, 'invalid_request');
    return { path: error.details.fields[0].path, message: error.message };
  };

  beforeAll(async () => {
    await dns.start();
    idp = await startHttpReceiver((_request, res) => {
      res
        .writeHead(served.status, { 'Content-Type': 'application/samlmetadata+xml' })
        .end(served.body);
    });
    // D35: the stand-in IdP serves its metadata on loopback, as the OIDC tests' provider does.
    service = await startTestService({
      env: { SVC_DNS_SERVERS: dns.address, SVC_ALLOW_PRIVATE_URLS: 'true' },
    });
    orgId = (
      await createOrganization(service.runtime.dependencies, {
        name: 'Metadata Corp',
        plan: 'enterprise',
      })
    ).id;
    acsUrl = `${service.url}/api/v1/sso/saml/${orgId}`;
    const owner = await createTestUser(service, { orgId, role: 'admin', email: `admin@${domain}` });
    member = await createTestUser(service, { orgId, role: 'train', email: `member@${domain}` });
    admin = await signedIn(service, owner);
    const added = await admin.request(`/api/v1/organizations/${orgId}/sso/domains`, {
      method: 'POST',
      body: { domain },
    });
    const record = json(added).txt_record;
    dns.txt.set(record.name, [record.value]);
    await admin.request(`/api/v1/organizations/${orgId}/sso/domains/${domain}/verify`, {
      method: 'POST',
    });
  });
  afterAll(async () => {
    await service.end();
    await idp.close();
    await dns.stop();
  });

  it('reads the entity id, SSO URL and every signing certificate from pasted metadata', async () => {
    const response = await put({
      metadata_xml: idpMetadata({
        entityId: IDP_ENTITY_ID,
        sso: { redirect: IDP_SSO_URL, post: `${IDP_SSO_URL}/post` },
        certificates: [IDP_CERT, IDP_NEXT_CERT],
      }),
    });

    expect(response.status).toBe(200);
    const { idp_certificates: certificates, ...settings } = json(response).saml;
    expect(settings).toEqual({
      idp_entity_id: IDP_ENTITY_ID,
      sso_url: IDP_SSO_URL,
      sso_binding: 'redirect',
      metadata_url: null,
    });
    expect(certificates.map(fingerprint)).toEqual([
      fingerprint(IDP_CERT),
      fingerprint(IDP_NEXT_CERT),
    ]);
    const read = await admin.request(`/api/v1/organizations/${orgId}/sso`);
    expect(json(read).saml.idp_entity_id).toBe(IDP_ENTITY_ID);
  });

  it('fetches metadata from its URL (D35 applies) and remembers where it came from', async () => {
    served = {
      status: 200,
      body: idpMetadata({ entityId: IDP_ENTITY_ID, sso: { redirect: IDP_SSO_URL } }),
    };

    const response = await put({ metadata_url: idp.url('/metadata') });

    expect(response.status).toBe(200);
    expect(json(response).saml).toMatchObject({
      idp_entity_id: IDP_ENTITY_ID,
      metadata_url: idp.url('/metadata'),
    });
  });

  it('checks the signature when the organization names the metadata signing certificate', async () => {
    const signed = idpMetadata({
      entityId: IDP_ENTITY_ID,
      sso: { redirect: IDP_SSO_URL },
      signedWith: { key: IDP_KEY, cert: IDP_CERT },
    });
    const unsigned = idpMetadata({ entityId: IDP_ENTITY_ID, sso: { redirect: IDP_SSO_URL } });

    expect(
      (await put({ metadata_xml: signed, metadata_signing_certificate: IDP_CERT })).status,
    ).toBe(200);
    expect(
      await refusedField({ metadata_xml: unsigned, metadata_signing_certificate: IDP_CERT }),
    ).toEqual({
      path: 'saml.metadata_xml',
      message:
        'The IdP metadata was refused: metadata is not signed, and a signing certificate was given',
    });
  });

  it.each([
    [
      'malformed XML',
      { metadata_xml: '<md:EntityDescriptor' },
      'saml.metadata_xml',
      /not well-formed XML/,
    ],
    [
      'expired metadata',
      {
        metadata_xml: idpMetadata({
          entityId: IDP_ENTITY_ID,
          sso: { redirect: IDP_SSO_URL },
          validUntil: '2020-01-01T00:00:00Z',
        }),
      },
      'saml.metadata_xml',
      /expired/,
    ],
    [
      'metadata and typed settings together',
      { metadata_xml: '<x/>', idp_entity_id: IDP_ENTITY_ID },
      'saml.idp_entity_id',
      /exactly one/,
    ],
    ['nothing at all', {}, 'saml.metadata_xml', /exactly one/],
    [
      'typed settings missing the certificates',
      { idp_entity_id: IDP_ENTITY_ID, sso_url: IDP_SSO_URL },
      'saml.idp_certificates',
      /needs idp_certificates/,
    ],
    [
      'a signing certificate without metadata',
      {
        idp_entity_id: IDP_ENTITY_ID,
        sso_url: IDP_SSO_URL,
        idp_certificates: [IDP_CERT],
        metadata_signing_certificate: IDP_CERT,
      },
      'saml.metadata_signing_certificate',
      /needs metadata/,
    ],
  ])('refuses %s with a 400 naming the field', async (_name, saml, path, message) => {
    const refused = await refusedField(saml);
    expect(refused.path).toBe(path);
    expect(refused.message).toMatch(message);
  });

  it('refuses metadata that is too large, before reading it', async () => {
    const response = await put({ metadata_xml: `<x>${'a'.repeat(300 * 1024)}</x>` });
    expect(expectNestedError(response, 400, 'invalid_request').details.fields[0].path).toBe(
      'saml.metadata_xml',
    );
  });

  it('refuses a metadata URL that answers an error, or too much, naming saml.metadata_url', async () => {
    served = { status: 404, body: 'not here' };
    expect(await refusedField({ metadata_url: idp.url('/metadata') })).toEqual({
      path: 'saml.metadata_url',
      message: 'The IdP metadata was refused: the metadata URL answered 404, not 200',
    });
    served = { status: 200, body: `<x>${'a'.repeat(300 * 1024)}</x>` };
    expect((await refusedField({ metadata_url: idp.url('/metadata') })).message).toMatch(
      /too large/,
    );
  });

  it('reaches an IdP that takes HTTP-POST only through a form, and signs in (P273)', async () => {
    const postUrl = `${IDP_SSO_URL}/post-only`;
    expect(
      (
        await put({
          metadata_xml: idpMetadata({ entityId: IDP_ENTITY_ID, sso: { post: postUrl } }),
        })
      ).status,
    ).toBe(200);
    const browser = new Browser();

    const page = await browser.request(`${service.url}/api/v1/sso/start?org_id=${orgId}`);

    expect(page.status).toBe(200);
    expect(page.text).toContain(`<form method="post" action="${postUrl}">`);
    const field = (name: string) =>
      new RegExp(`name="${name}" value="([^"]*)"`).exec(page.text)?.[1] ?? '';
    const request = Buffer.from(field('SAMLRequest'), 'base64').toString('utf8');
    const requestId = /ID="([^"]+)"/.exec(request)?.[1] ?? '';
    expect(request).toContain(`AssertionConsumerServiceURL="${acsUrl}"`);
    const landed = await browser.request(acsUrl, {
      method: 'POST',
      form: {
        SAMLResponse: base64(
          samlResponse({
            idpEntityId: IDP_ENTITY_ID,
            inResponseTo: requestId,
            recipient: acsUrl,
            audience: acsUrl,
            email: member.email,
          }),
        ),
        RelayState: field('RelayState'),
      },
      headers: { 'sec-fetch-site': 'cross-site', origin: 'https://idp.metadata.example' },
    });
    expect(landed.status).toBe(303);
    const me = await browser.request(`${service.url}/api/v1/auth/me`);
    expect(JSON.parse(me.text).user).toMatchObject({ id: member.id });
  });
});
