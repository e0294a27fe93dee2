import { createOrganization } from '../../layers/core/use-cases/organizations/organization-use-cases';
import { expectFlatError, expectNestedError } from '../support/error-shapes';
import { api, json } from '../support/http-client';
import { createTestUser, signedIn, WebSession } from '../support/web-session';
import { ssoConfigurationSuite } from './sso-configuration-suite';

/**
 * D14 SSO configuration over HTTP against the real local runtime, with a
 * real DNS server on loopback for the TXT checks (P86): domains, the
 * configuration itself (P85, P87, P88), enforce_sso (P89), roles, keys,
 * plans, tenants, legacy paths.
 */
describe('SSO configuration (D14)', () => {
  const { oidcBody, verifiedDomain, service } = ssoConfigurationSuite();

  describe('enforce_sso (P89)', () => {
    it("refuses password sign-in for the organization's users once on, with 403 naming where to sign in", async () => {
      const org = await createOrganization(service().runtime.dependencies, {
        name: 'Enforcing',
        plan: 'enterprise',
      });
      const orgAdmin = await createTestUser(service(), { orgId: org.id, role: 'admin' });
      const member = await createTestUser(service(), { orgId: org.id, role: 'readonly' });
      const orgBrowser = await signedIn(service(), orgAdmin);
      const path = `/api/v1/organizations/${org.id}`;
      await verifiedDomain(orgBrowser, path);
      await orgBrowser.request(`${path}/sso`, {
        method: 'PUT',
        body: oidcBody({ enforce_sso: true }),
      });

      const v1 = await new WebSession(service().url).signIn(member.email, member.password);
      const legacy = await api(service().url, '/api/auth/login', {
        method: 'POST',
        body: { email: member.email, password: member.password },
      });
      const wrongPassword = await new WebSession(service().url).signIn(
        member.email,
        'not the password at all',
      );

      expect(expectNestedError(v1, 403, 'forbidden').details).toEqual({
        reason: 'sso_required',
        sso_start_url: `/api/v1/sso/start?org_id=${org.id}`,
      });
      expect(v1.headers.getSetCookie()).toEqual([]);
      expectFlatError(legacy, 403);
      // The refusal comes only after the password: a guesser learns nothing.
      expectNestedError(wrongPassword, 401, 'unauthorized');
    });

    it("refuses password sign-in for an email of an enforcing organization's verified domain, in any organization", async () => {
      const org = await createOrganization(service().runtime.dependencies, {
        name: 'Owns the domain',
        plan: 'enterprise',
      });
      const orgBrowser = await signedIn(
        service(),
        await createTestUser(service(), { orgId: org.id, role: 'admin' }),
      );
      const path = `/api/v1/organizations/${org.id}`;
      const domain = await verifiedDomain(orgBrowser, path);
      await orgBrowser.request(`${path}/sso`, {
        method: 'PUT',
        body: oidcBody({ enforce_sso: true }),
      });
      const elsewhere = await createTestUser(service(), { email: `someone@${domain}` });

      const response = await new WebSession(service().url).signIn(
        elsewhere.email,
        elsewhere.password,
      );

      expect(expectNestedError(response, 403, 'forbidden').details).toMatchObject({
        reason: 'sso_required',
        sso_start_url: `/api/v1/sso/start?org_id=${org.id}`,
      });
    });

    it('lets password sign-in through again once enforce_sso is off', async () => {
      const org = await createOrganization(service().runtime.dependencies, {
        name: 'Toggles',
        plan: 'enterprise',
      });
      const orgAdmin = await createTestUser(service(), { orgId: org.id, role: 'admin' });
      const orgBrowser = await signedIn(service(), orgAdmin);
      const path = `/api/v1/organizations/${org.id}`;
      await verifiedDomain(orgBrowser, path);
      await orgBrowser.request(`${path}/sso`, {
        method: 'PUT',
        body: oidcBody({ enforce_sso: true }),
      });
      const refused = await new WebSession(service().url).signIn(orgAdmin.email, orgAdmin.password);
      // The admin's session from before still works: they turn it off.
      const off = await orgBrowser.request(`${path}/sso`, {
        method: 'PUT',
        body: {
          protocol: 'oidc',
          enforce_sso: false,
          oidc: { issuer: 'https://idp.example.com', client_id: 'c' },
        },
      });

      const allowed = await new WebSession(service().url).signIn(orgAdmin.email, orgAdmin.password);

      expect(refused.status).toBe(403);
      expect(off.status).toBe(200);
      expect(allowed.status).toBe(200);
    });

    it('refuses to accept an invitation with a password while on, and leaves it usable (P205)', async () => {
      const org = await createOrganization(service().runtime.dependencies, {
        name: 'Invites under SSO',
        plan: 'enterprise',
      });
      const orgBrowser = await signedIn(
        service(),
        await createTestUser(service(), { orgId: org.id, role: 'admin' }),
      );
      const path = `/api/v1/organizations/${org.id}`;
      const domain = await verifiedDomain(orgBrowser, path);
      await orgBrowser.request(`${path}/sso`, {
        method: 'PUT',
        body: oidcBody({ enforce_sso: true }),
      });
      const invited = await orgBrowser.request('/api/v1/users', {
        method: 'POST',
        body: { email: `newcomer@${domain}`, name: 'Newcomer', role: 'readonly' },
      });
      const { token } = json(invited).invitation;
      const accept = (route: string) =>
        api(service().url, route, {
          method: 'POST',
          body: { token, password: 'a long enough password' },
        });

      const v1 = await accept('/api/v1/auth/invitations/accept');
      const legacy = await accept('/api/auth/invitations/accept');
      await orgBrowser.request(`${path}/sso`, {
        method: 'PUT',
        body: oidcBody({ enforce_sso: false }),
      });
      const accepted = await accept('/api/v1/auth/invitations/accept');

      expect(expectNestedError(v1, 403, 'forbidden').details).toEqual({
        reason: 'sso_required',
        sso_start_url: `/api/v1/sso/start?org_id=${org.id}`,
      });
      expect(v1.headers.getSetCookie()).toEqual([]);
      expectFlatError(legacy, 403);
      expect(accepted.status).toBe(200);
      expect(accepted.headers.getSetCookie().some((c) => c.startsWith('svc_session='))).toBe(true);
    });
  });
});
