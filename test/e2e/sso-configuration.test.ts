import { createOrganization } from '../../layers/core/use-cases/organizations/organization-use-cases';
import { expectFlatError, expectNestedError, fieldPaths } from '../support/error-shapes';
import { api, json } from '../support/http-client';
import { IDP_CERT } from '../support/saml-idp';
import { createKey } from '../support/tenants';
import { createTestUser, signedIn } from '../support/web-session';
import { ssoConfigurationSuite } from './sso-configuration-suite';

/**
 * D14 SSO configuration over HTTP against the real local runtime, with a
 * real DNS server on loopback for the TXT checks (P86): domains, the
 * configuration itself (P85, P87, P88), enforce_sso (P89), roles, keys,
 * plans, tenants, legacy paths.
 */
describe('SSO configuration (D14)', () => {
  const { dns, uniqueDomain, oidcBody, verifiedDomain, service, browser, orgPath } =
    ssoConfigurationSuite();

  describe('Domains verified by a DNS TXT record (P86)', () => {
    it('gives a token to publish, refuses verification until the record is there, then verifies', async () => {
      const domain = uniqueDomain();

      const added = await browser().request(`${orgPath()}/sso/domains`, {
        method: 'POST',
        body: { domain: `  ${domain.toUpperCase()}. ` },
      });
      const early = await browser().request(`${orgPath()}/sso/domains/${domain}/verify`, {
        method: 'POST',
      });
      const record = json(added).txt_record;
      dns.txt.set(record.name, ['v=spf1 -all', record.value]);
      const verified = await browser().request(`${orgPath()}/sso/domains/${domain}/verify`, {
        method: 'POST',
      });
      const listed = await browser().request(`${orgPath()}/sso/domains`);

      expect(added.status).toBe(201);
      expect(json(added)).toMatchObject({ domain, status: 'pending', verified_at: null });
      expect(record.name).toBe(`_svc-verification.${domain}`);
      expect(record.value).toMatch(/^svc-domain-verification=[A-Za-z0-9_-]{32}$/);
      const refusal = expectNestedError(early, 409, 'invalid_request');
      expect(refusal.details).toMatchObject({ reason: 'txt_record_not_found', txt_record: record });
      expect(verified.status).toBe(200);
      expect(json(verified)).toMatchObject({ domain, status: 'verified', last_error: null });
      expect(json(listed).domains).toEqual(
        expect.arrayContaining([expect.objectContaining({ domain, status: 'verified' })]),
      );
    });

    it('does not accept a record carrying another token', async () => {
      const domain = uniqueDomain();
      const added = await browser().request(`${orgPath()}/sso/domains`, {
        method: 'POST',
        body: { domain },
      });
      dns.txt.set(json(added).txt_record.name, ['svc-domain-verification=someone-elses-token']);

      const response = await browser().request(`${orgPath()}/sso/domains/${domain}/verify`, {
        method: 'POST',
      });

      expectNestedError(response, 409, 'invalid_request');
      const listed = json(await browser().request(`${orgPath()}/sso/domains`)).domains;
      expect(listed.find((entry: { domain: string }) => entry.domain === domain)).toMatchObject({
        status: 'pending',
        last_error: expect.stringContaining('No TXT record'),
      });
    });

    it('answers 503 when DNS fails, and the domain stays pending', async () => {
      const domain = uniqueDomain();
      await browser().request(`${orgPath()}/sso/domains`, { method: 'POST', body: { domain } });
      dns.failing = true;
      try {
        const response = await browser().request(`${orgPath()}/sso/domains/${domain}/verify`, {
          method: 'POST',
        });
        expectNestedError(response, 503, 'service_unavailable');
        expect(response.headers.get('retry-after')).toBe('30');
      } finally {
        dns.failing = false;
      }
    });

    it('lets one organization hold a verified domain: a second one gets 409', async () => {
      const domain = await verifiedDomain(browser(), orgPath());
      const other = await createOrganization(service().runtime.dependencies, {
        name: 'Other',
        plan: 'enterprise',
      });
      const otherAdmin = await createTestUser(service(), { orgId: other.id, role: 'admin' });
      const otherBrowser = await signedIn(service(), otherAdmin);
      const otherPath = `/api/v1/organizations/${other.id}`;
      const added = await otherBrowser.request(`${otherPath}/sso/domains`, {
        method: 'POST',
        body: { domain },
      });
      // The other organization publishes its own token beside ours.
      const record = json(added).txt_record;
      dns.txt.set(record.name, [...(dns.txt.get(record.name) ?? []), record.value]);

      const response = await otherBrowser.request(`${otherPath}/sso/domains/${domain}/verify`, {
        method: 'POST',
      });

      expect(added.status).toBe(201);
      expect(expectNestedError(response, 409, 'invalid_request').details).toMatchObject({
        reason: 'domain_taken',
      });
    });

    it('refuses what is not a domain name, naming the field', async () => {
      for (const domain of [
        'localhost',
        '127.0.0.1',
        'http://a.example',
        'a..example',
        '-a.example',
        'a.example/x',
        'a@b.example',
        '',
      ]) {
        const response = await browser().request(`${orgPath()}/sso/domains`, {
          method: 'POST',
          body: { domain },
        });
        expect(fieldPaths(expectNestedError(response, 400, 'invalid_request'))).toEqual(['domain']);
      }
    });

    it('refuses the same domain twice (409) and deletes a domain (204, then 404)', async () => {
      const domain = uniqueDomain();
      await browser().request(`${orgPath()}/sso/domains`, { method: 'POST', body: { domain } });

      const again = await browser().request(`${orgPath()}/sso/domains`, {
        method: 'POST',
        body: { domain },
      });
      const deleted = await browser().request(`${orgPath()}/sso/domains/${domain}`, {
        method: 'DELETE',
      });
      const gone = await browser().request(`${orgPath()}/sso/domains/${domain}`, {
        method: 'DELETE',
      });

      expectNestedError(again, 409, 'invalid_request');
      expect(deleted.status).toBe(204);
      expectNestedError(gone, 404, 'not_found');
    });
  });

  describe('The configuration (PUT /api/v1/organizations/:id/sso)', () => {
    it('needs a verified domain first (403)', async () => {
      const fresh = await createOrganization(service().runtime.dependencies, {
        name: 'No domain yet',
        plan: 'enterprise',
      });
      const freshAdmin = await signedIn(
        service(),
        await createTestUser(service(), { orgId: fresh.id, role: 'admin' }),
      );

      const response = await freshAdmin.request(`/api/v1/organizations/${fresh.id}/sso`, {
        method: 'PUT',
        body: oidcBody(),
      });

      expect(expectNestedError(response, 403, 'forbidden').details).toMatchObject({
        reason: 'verified_domain_required',
      });
    });

    it('needs the enterprise plan (403) for the configuration and for domains', async () => {
      const pro = await createOrganization(service().runtime.dependencies, {
        name: 'Pro',
        plan: 'pro',
      });
      const proAdmin = await signedIn(
        service(),
        await createTestUser(service(), { orgId: pro.id, role: 'admin' }),
      );

      const configured = await proAdmin.request(`/api/v1/organizations/${pro.id}/sso`, {
        method: 'PUT',
        body: oidcBody(),
      });
      const domain = await proAdmin.request(`/api/v1/organizations/${pro.id}/sso/domains`, {
        method: 'POST',
        body: { domain: uniqueDomain() },
      });

      for (const response of [configured, domain]) {
        expect(expectNestedError(response, 403, 'forbidden').details).toMatchObject({
          reason: 'plan_required',
          required_plan: 'enterprise',
          current_plan: 'pro',
        });
      }
    });

    it('stores the configuration, never returning the client secret, and keeps it when omitted later', async () => {
      await verifiedDomain(browser(), orgPath());

      const put = await browser().request(`${orgPath()}/sso`, { method: 'PUT', body: oidcBody() });
      const got = await browser().request(`${orgPath()}/sso`);
      const updated = await browser().request(`${orgPath()}/sso`, {
        method: 'PUT',
        body: {
          protocol: 'oidc',
          enforce_sso: false,
          oidc: { issuer: 'https://idp.example.com', client_id: 'svc-client-2' },
          provision_role: 'readonly',
        },
      });
      const stored = await service().runtime.dependencies.ssoRepository.getConfiguration(
        service().orgId,
      );

      expect(put.status).toBe(200);
      expect(json(put)).toMatchObject({
        org_id: service().orgId,
        protocol: 'oidc',
        enforce_sso: false,
        oidc: {
          issuer: 'https://idp.example.com',
          client_id: 'svc-client',
          preset: null,
          scopes: [],
          client_secret_set: true,
        },
        attribute_mapping: { email: 'email' },
        provision_role: null,
        redirect_uri: `${service().url}/api/v1/sso/oidc/callback`,
        sign_in_url: `${service().url}/api/v1/sso/start?org_id=${service().orgId}`,
      });
      for (const response of [put, got, updated]) {
        expect(response.text).not.toContain('the client secret value');
      }
      expect(json(got)).toEqual(json(put));
      expect(json(updated).oidc).toMatchObject({
        client_id: 'svc-client-2',
        client_secret_set: true,
      });
      expect(json(updated).provision_role).toBe('readonly');
      // D33: sealed at rest, and it opens only in this organization's context.
      expect(JSON.stringify(stored)).not.toContain('the client secret value');
      expect(stored?.client_secret_sealed).toEqual(expect.any(String));
    });

    it('fills the issuer in from a preset (P87) and refuses a preset whose issuer disagrees', async () => {
      const google = await browser().request(`${orgPath()}/sso`, {
        method: 'PUT',
        body: oidcBody({ oidc: { preset: 'google', client_id: 'g', client_secret: 's' } }),
      });
      const microsoft = await browser().request(`${orgPath()}/sso`, {
        method: 'PUT',
        body: oidcBody({
          oidc: { preset: 'microsoft', tenant: 'contoso.onmicrosoft.com', client_id: 'm' },
        }),
      });
      const noTenant = await browser().request(`${orgPath()}/sso`, {
        method: 'PUT',
        body: oidcBody({ oidc: { preset: 'microsoft', client_id: 'm' } }),
      });
      const disagreeing = await browser().request(`${orgPath()}/sso`, {
        method: 'PUT',
        body: oidcBody({
          oidc: { preset: 'google', issuer: 'https://evil.example', client_id: 'g' },
        }),
      });

      expect(json(google).oidc).toMatchObject({
        preset: 'google',
        issuer: 'https://accounts.google.com',
      });
      expect(json(microsoft).oidc).toMatchObject({
        preset: 'microsoft',
        issuer: 'https://login.microsoftonline.com/contoso.onmicrosoft.com/v2.0',
      });
      expect(fieldPaths(expectNestedError(noTenant, 400, 'invalid_request'))).toEqual([
        'oidc.tenant',
      ]);
      expect(fieldPaths(expectNestedError(disagreeing, 400, 'invalid_request'))).toEqual([
        'oidc.issuer',
      ]);
    });

    it('refuses bad bodies with 400 naming the field', async () => {
      const cases: Array<[unknown, string]> = [
        [{ ...oidcBody(), protocol: 'kerberos' }, 'protocol'],
        [{ ...oidcBody(), enforce_sso: 'yes' }, 'enforce_sso'],
        [oidcBody({ oidc: { issuer: 'not a url', client_id: 'x' } }), 'oidc.issuer'],
        [oidcBody({ oidc: { issuer: 'ftp://idp.example', client_id: 'x' } }), 'oidc.issuer'],
        [oidcBody({ oidc: { issuer: 'https://idp.example' } }), 'oidc.client_id'],
        [oidcBody({ provision_role: 'owner' }), 'provision_role'],
        [{ ...oidcBody(), surprise: true }, ''],
      ];
      for (const [body, field] of cases) {
        const response = await browser().request(`${orgPath()}/sso`, { method: 'PUT', body });
        const error = expectNestedError(response, 400, 'invalid_request');
        if (field) expect(fieldPaths(error)).toContain(field);
      }
    });

    it('refuses identity provider addresses with user info or without https (P220): 400 naming the field', async () => {
      const saml = (ssoUrl: string) => ({
        protocol: 'saml',
        enforce_sso: false,
        saml: {
          idp_entity_id: 'https://idp.example/saml',
          sso_url: ssoUrl,
          idp_certificates: [IDP_CERT],
        },
      });
      const oidc = (issuer: string) =>
        oidcBody({ oidc: { issuer, client_id: 'x', client_secret: 's' } });
      const cases: Array<[unknown, string]> = [
        [saml('http://idp.example/sso'), 'saml.sso_url'],
        [saml('https://user:secret@idp.example/sso'), 'saml.sso_url'],
        [saml('https://user@idp.example/sso'), 'saml.sso_url'],
        // Loopback over http only with SVC_ALLOW_PRIVATE_URLS (D35), which this service lacks.
        [saml('http://127.0.0.1:8080/sso'), 'saml.sso_url'],
        [saml('http://localhost/sso'), 'saml.sso_url'],
        [oidc('http://idp.example.com'), 'oidc.issuer'],
        [oidc('https://admin:secret@idp.example.com'), 'oidc.issuer'],
      ];
      for (const [body, field] of cases) {
        const response = await browser().request(`${orgPath()}/sso`, { method: 'PUT', body });

        expect(fieldPaths(expectNestedError(response, 400, 'invalid_request'))).toEqual([field]);
      }
      const https = await browser().request(`${orgPath()}/sso`, {
        method: 'PUT',
        body: saml('https://idp.example/sso'),
      });
      expect(https.status).toBe(200);
    });

    it('deletes the configuration (204), after which it is 404', async () => {
      const other = await createOrganization(service().runtime.dependencies, {
        name: 'Deletes',
        plan: 'enterprise',
      });
      const otherBrowser = await signedIn(
        service(),
        await createTestUser(service(), { orgId: other.id, role: 'admin' }),
      );
      const path = `/api/v1/organizations/${other.id}`;
      await verifiedDomain(otherBrowser, path);
      await otherBrowser.request(`${path}/sso`, { method: 'PUT', body: oidcBody() });

      const deleted = await otherBrowser.request(`${path}/sso`, { method: 'DELETE' });
      const got = await otherBrowser.request(`${path}/sso`);
      const again = await otherBrowser.request(`${path}/sso`, { method: 'DELETE' });

      expect(deleted.status).toBe(204);
      expectNestedError(got, 404, 'not_found');
      expectNestedError(again, 404, 'not_found');
    });
  });

  describe('Who may (D13, P85)', () => {
    it('refuses roles below admin (403) and API keys, even Admin ones (403)', async () => {
      const configure = await signedIn(
        service(),
        await createTestUser(service(), { role: 'configure' }),
      );
      const key = await createKey(service(), service().orgId, { scopes: ['Admin'] });

      const byRole = await configure.request(`${orgPath()}/sso`);
      const byKey = await api(service().url, `${orgPath()}/sso`, { key: key.key });
      const keyAddsDomain = await api(service().url, `${orgPath()}/sso/domains`, {
        method: 'POST',
        key: key.key,
        body: { domain: uniqueDomain() },
      });

      expect(expectNestedError(byRole, 403, 'forbidden').details).toMatchObject({
        required_role: 'admin',
        current_role: 'configure',
      });
      expectNestedError(byKey, 403, 'forbidden');
      expectNestedError(keyAddsDomain, 403, 'forbidden');
    });

    it("answers another organization's id as not found, and a malformed id as 400", async () => {
      const other = await createOrganization(service().runtime.dependencies, {
        name: 'Someone else',
        plan: 'enterprise',
      });

      const read = await browser().request(`/api/v1/organizations/${other.id}/sso`);
      const write = await browser().request(`/api/v1/organizations/${other.id}/sso/domains`, {
        method: 'POST',
        body: { domain: uniqueDomain() },
      });
      const malformed = await browser().request('/api/v1/organizations/agt_nope/sso');

      expectNestedError(read, 404, 'not_found');
      expectNestedError(write, 404, 'not_found');
      expectNestedError(malformed, 400, 'invalid_request');
    });

    it('needs the CSRF token for changes, like every cookie-authenticated change (D12)', async () => {
      const response = await api(service().url, `${orgPath()}/sso/domains`, {
        method: 'POST',
        body: { domain: uniqueDomain() },
        headers: { cookie: browser().jar.header() ?? '' },
      });

      expectNestedError(response, 403, 'forbidden');
    });

    it('has no unversioned twin (P85): /api/organizations/:id/sso is not found, in the flat shape', async () => {
      const response = await browser().request(`/api/organizations/${service().orgId}/sso`);

      expectFlatError(response, 404);
    });
  });
});
