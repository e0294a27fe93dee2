import type { Route } from '../route';

/**
 * SSO: the `sso` function's rows of the route table (layers/core/http/routes/route-table.ts).
 * Configuration and domains take a signed-in admin only (keys
 * never manage SSO), under /api/v1/organizations/:id/sso as D14 names it.
 * No unversioned twin — the spec's legacy table lists none, and every
 * API Gateway resource and method counts against CloudFormation's 500
 * resources per stack, which the live stack nearly reaches.
 */
export const SSO_ROUTES: readonly Route[] = [
  {
    method: 'GET',
    path: '/api/v1/organizations/{id}/sso',
    family: 'sso',
    operation: 'getSsoConfiguration',
    access: 'session',
    scope: 'Admin',
    role: 'admin',
    api: 'v1',
  },
  {
    method: 'PUT',
    path: '/api/v1/organizations/{id}/sso',
    family: 'sso',
    operation: 'putSsoConfiguration',
    access: 'session',
    scope: 'Admin',
    role: 'admin',
    api: 'v1',
  },
  {
    method: 'DELETE',
    path: '/api/v1/organizations/{id}/sso',
    family: 'sso',
    operation: 'deleteSsoConfiguration',
    access: 'session',
    scope: 'Admin',
    role: 'admin',
    api: 'v1',
  },
  {
    method: 'GET',
    path: '/api/v1/organizations/{id}/sso/domains',
    family: 'sso',
    operation: 'listSsoDomains',
    access: 'session',
    scope: 'Admin',
    role: 'admin',
    api: 'v1',
  },
  {
    method: 'POST',
    path: '/api/v1/organizations/{id}/sso/domains',
    family: 'sso',
    operation: 'addSsoDomain',
    access: 'session',
    scope: 'Admin',
    role: 'admin',
    api: 'v1',
  },
  {
    method: 'POST',
    path: '/api/v1/organizations/{id}/sso/domains/{domain}/verify',
    family: 'sso',
    operation: 'verifySsoDomain',
    access: 'session',
    scope: 'Admin',
    role: 'admin',
    api: 'v1',
  },
  {
    method: 'DELETE',
    path: '/api/v1/organizations/{id}/sso/domains/{domain}',
    family: 'sso',
    operation: 'deleteSsoDomain',
    access: 'session',
    scope: 'Admin',
    role: 'admin',
    api: 'v1',
  },
  // The browser's side (public): leave for the identity provider, and come back (P90: v1 only).
  {
    method: 'GET',
    path: '/api/v1/sso/start',
    family: 'sso',
    operation: 'startSsoSignIn',
    access: 'public',
    api: 'v1',
  },
  {
    method: 'GET',
    path: '/api/v1/sso/oidc/callback',
    family: 'sso',
    operation: 'completeOidcSignIn',
    access: 'public',
    api: 'v1',
  },
  // SAML: the organization's endpoint — its entity id, SP metadata (GET) and ACS (the IdP's POST).
  {
    method: 'GET',
    path: '/api/v1/sso/saml/{org_id}',
    family: 'sso',
    operation: 'getSamlMetadata',
    access: 'public',
    api: 'v1',
  },
  {
    method: 'POST',
    path: '/api/v1/sso/saml/{org_id}',
    family: 'sso',
    operation: 'completeSamlSignIn',
    access: 'public',
    api: 'v1',
    formPost: true,
  },
];
