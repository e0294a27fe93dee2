import { ApiError } from '../../src/api/api-error';
import {
  configurationBody,
  discoveryUrl,
  explainSsoFailure,
  fieldInputName,
  fieldLabel,
  type ProviderFormValues,
  presetIssuer,
  providerOf,
  type SsoConfiguration,
  samlSourceOf,
  serviceProviderValues,
  splitCertificates,
  tenantOf,
  testSignInHref,
  withEnforcement,
} from '../../src/screens/settings/sso/sso-setup';

const FORM: ProviderFormValues = {
  protocol: 'oidc',
  oidcProvider: 'google',
  tenant: '',
  issuer: '',
  clientId: ' client-1 ',
  clientSecret: '',
  samlSource: 'manual',
  metadataUrl: '',
  metadataXml: '',
  metadataSigningCertificate: '',
  idpEntityId: '',
  ssoUrl: '',
  ssoBinding: 'redirect',
  certificates: '',
  emailAttribute: '',
  provisionRole: '',
};

const SAVED: SsoConfiguration = {
  org_id: 'org_1',
  protocol: 'oidc',
  enforce_sso: true,
  oidc: {
    issuer: 'https://login.microsoftonline.com/contoso.onmicrosoft.com/v2.0',
    client_id: 'client-1',
    preset: 'microsoft',
    scopes: ['groups'],
    client_secret_set: true,
  },
  saml: null,
  attribute_mapping: { email: 'upn' },
  provision_role: 'readonly',
  redirect_uri: 'https://console.example/api/v1/sso/oidc/callback',
  saml_service_provider: {
    entity_id: 'https://console.example/api/v1/sso/saml/org_1',
    acs_url: 'https://console.example/api/v1/sso/saml/org_1',
  },
  sign_in_url: 'https://console.example/api/v1/sso/start?org_id=org_1',
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
};

const PEM = (body: string) => `-----BEGIN CERTIFICATE-----\n${body}\n-----END CERTIFICATE-----`;

describe('the SSO setup page', () => {
  it('knows the presets’ issuers (P87) and reads a Microsoft tenant back', () => {
    expect(presetIssuer('google', '')).toBe('https://accounts.google.com');
    expect(presetIssuer('microsoft', ' contoso ')).toBe(
      'https://login.microsoftonline.com/contoso/v2.0',
    );
    expect(presetIssuer('microsoft', '  ')).toBeNull();
    expect(tenantOf('https://login.microsoftonline.com/contoso/v2.0')).toBe('contoso');
    expect(tenantOf('https://accounts.google.com')).toBe('');
    expect(discoveryUrl('https://idp.example/')).toBe(
      'https://idp.example/.well-known/openid-configuration',
    );
  });

  it('shows the API’s addresses once saved, and the same paths on this origin before (P290)', () => {
    expect(serviceProviderValues('https://console.example', 'org_1', null)).toEqual({
      redirectUri: 'https://console.example/api/v1/sso/oidc/callback',
      acsUrl: 'https://console.example/api/v1/sso/saml/org_1',
      entityId: 'https://console.example/api/v1/sso/saml/org_1',
      metadataUrl: 'https://console.example/api/v1/sso/saml/org_1',
    });
    const saved = { ...SAVED, redirect_uri: 'https://api.example/api/v1/sso/oidc/callback' };
    expect(serviceProviderValues('https://console.example', 'org_1', saved).redirectUri).toBe(
      'https://api.example/api/v1/sso/oidc/callback',
    );
  });

  it('starts the test sign-in for the organization, landing back on the page (P262)', () => {
    expect(testSignInHref('org_1')).toBe(
      '/api/v1/sso/start?org_id=org_1&next=%2Fsettings%2Fsso%3Ftested%3D1',
    );
  });

  it('splits pasted certificates into PEM blocks', () => {
    expect(splitCertificates(`${PEM('AAA')}\n\n${PEM('BBB')}\n`)).toEqual([PEM('AAA'), PEM('BBB')]);
    expect(splitCertificates('  MIIBbare  ')).toEqual(['MIIBbare']);
    expect(splitCertificates('   ')).toEqual([]);
  });

  it('builds the PUT body for each OIDC choice, keeping enforcement and scopes as saved', () => {
    expect(configurationBody(FORM, null)).toEqual({
      protocol: 'oidc',
      enforce_sso: false,
      provision_role: null,
      oidc: { preset: 'google', client_id: 'client-1' },
    });
    expect(
      configurationBody(
        {
          ...FORM,
          oidcProvider: 'microsoft',
          tenant: ' contoso ',
          clientSecret: 's',
          provisionRole: 'train',
          emailAttribute: ' upn ',
        },
        SAVED,
      ),
    ).toEqual({
      protocol: 'oidc',
      enforce_sso: true,
      provision_role: 'train',
      attribute_mapping: { email: 'upn' },
      oidc: {
        preset: 'microsoft',
        tenant: 'contoso',
        client_id: 'client-1',
        client_secret: 's',
        scopes: ['groups'],
      },
    });
    expect(
      configurationBody({ ...FORM, oidcProvider: 'other', issuer: ' https://idp.example ' }, null),
    ).toMatchObject({ oidc: { issuer: 'https://idp.example', client_id: 'client-1' } });
  });

  it('builds the SAML body from the fields given by hand', () => {
    expect(
      configurationBody(
        {
          ...FORM,
          protocol: 'saml',
          idpEntityId: ' urn:idp ',
          ssoUrl: 'https://idp.example/sso',
          certificates: PEM('AAA'),
        },
        null,
      ),
    ).toEqual({
      protocol: 'saml',
      enforce_sso: false,
      provision_role: null,
      saml: {
        idp_entity_id: 'urn:idp',
        sso_url: 'https://idp.example/sso',
        sso_binding: 'redirect',
        idp_certificates: [PEM('AAA')],
      },
    });
  });

  it('gives a SAML IdP by its metadata, pasted or at a URL, with the optional signing certificate (P272)', () => {
    const saml = { ...FORM, protocol: 'saml' as const };
    expect(
      configurationBody(
        {
          ...saml,
          samlSource: 'xml',
          metadataXml: '<md:EntityDescriptor/>',
          idpEntityId: 'ignored',
        },
        null,
      ),
    ).toEqual({
      protocol: 'saml',
      enforce_sso: false,
      provision_role: null,
      saml: { metadata_xml: '<md:EntityDescriptor/>' },
    });
    expect(
      configurationBody(
        {
          ...saml,
          samlSource: 'url',
          metadataUrl: ' https://idp.example/metadata ',
          metadataSigningCertificate: ` ${PEM('SIG')} `,
        },
        null,
      ),
    ).toMatchObject({
      saml: {
        metadata_url: 'https://idp.example/metadata',
        metadata_signing_certificate: PEM('SIG'),
      },
    });
  });

  it('turns enforcement on or off with every other setting as saved (the secret left out, so kept)', () => {
    expect(withEnforcement(SAVED, false)).toEqual({
      protocol: 'oidc',
      enforce_sso: false,
      provision_role: 'readonly',
      attribute_mapping: { email: 'upn' },
      oidc: {
        preset: 'microsoft',
        tenant: 'contoso.onmicrosoft.com',
        client_id: 'client-1',
        scopes: ['groups'],
      },
    });
    const saml: SsoConfiguration = {
      ...SAVED,
      protocol: 'saml',
      oidc: null,
      saml: {
        idp_entity_id: 'urn:idp',
        sso_url: 'https://idp.example/sso',
        idp_certificates: [PEM('AAA')],
        sso_binding: 'post',
        metadata_url: 'https://idp.example/metadata',
      },
    };
    // P292: the settings in use are sent back, not the metadata URL (which would read it again).
    expect(withEnforcement(saml, true)).toMatchObject({
      protocol: 'saml',
      enforce_sso: true,
      saml: {
        idp_entity_id: 'urn:idp',
        sso_url: 'https://idp.example/sso',
        sso_binding: 'post',
        idp_certificates: [PEM('AAA')],
      },
    });
    expect(samlSourceOf(saml)).toBe('url');
    expect(samlSourceOf({ ...saml, saml: { ...(saml.saml ?? fail()), metadata_url: null } })).toBe(
      'manual',
    );
    expect(samlSourceOf(null)).toBe('url');
    expect(providerOf(SAVED)).toBe('microsoft');
    expect(providerOf(null)).toBe('google');
    const oidc = SAVED.oidc ?? fail('the fixture has OIDC settings');
    expect(providerOf({ ...SAVED, oidc: { ...oidc, preset: null } })).toBe('other');
  });

  it('names a 400’s fields by the form’s labels', () => {
    expect(fieldLabel('oidc.client_secret')).toBe('Client secret');
    expect(fieldLabel('saml.idp_certificates.1')).toBe('Signing certificates (certificate 2)');
    expect(fieldLabel('something.else')).toBe('something.else');
    expect(fieldInputName('saml.idp_certificates.0')).toBe('certificates');
    expect(fieldInputName('oidc.issuer')).toBe('issuer');
    expect(fieldLabel('saml.metadata_xml')).toBe('Metadata XML');
    expect(fieldInputName('saml.metadata_url')).toBe('metadata_url');
    expect(fieldInputName('provision_role')).toBeNull();
  });

  it('says what a refused SSO write means, keeping the reference', () => {
    const refused = (
      status: number,
      details: Record<string, unknown>,
      retryAfter: number | null = null,
    ) => new ApiError(status, 'x', 'generic', 'server', details, 'req_1', retryAfter);
    const said = (error: ApiError) => {
      const explained = explainSsoFailure(error);
      expect(explained).toBeInstanceOf(ApiError);
      expect((explained as ApiError).requestId).toBe('req_1');
      return (explained as ApiError).message;
    };
    expect(
      said(
        refused(409, {
          reason: 'txt_record_not_found',
          txt_record: { name: '_svc-verification.example.com', value: 'v' },
        }),
      ),
    ).toMatch(/^The DNS has no TXT record _svc-verification\.example\.com with this value yet\./);
    expect(said(refused(409, { reason: 'domain_taken' }))).toMatch(/^Another organization/);
    expect(said(refused(403, { reason: 'plan_required', current_plan: 'team' }))).toBe(
      'Single sign-on needs the enterprise plan; this organization is on team.',
    );
    expect(said(refused(403, { reason: 'verified_domain_required' }))).toMatch(/^Verify a domain/);
    expect(said(refused(503, {}, 30))).toBe(
      'The DNS look-up failed, so nothing was decided: try again in 30 s.',
    );
    expect(said(refused(400, {}))).toBe('generic');
    const other = new Error('boom');
    expect(explainSsoFailure(other)).toBe(other);
  });
});
