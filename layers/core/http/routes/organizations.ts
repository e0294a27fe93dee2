import type { Route } from '../route';

/**
 * The organization's settings, the `organizations` function's rows of the
 * route table (layers/core/http/routes/route-table.ts): the organization itself and
 * its API keys.
 */
export const ORGANIZATIONS_ROUTES: readonly Route[] = [
  // The organization (D9 Admin scope, as the spec's scope table names "organization settings"; D13 admin role)
  {
    method: 'GET',
    path: '/api/v1/organizations/{id}',
    family: 'organizations',
    operation: 'getOrganization',
    scope: 'Admin',
    role: 'admin',
    api: 'v1',
  },
  {
    method: 'PUT',
    path: '/api/v1/organizations/{id}',
    family: 'organizations',
    operation: 'updateOrganization',
    scope: 'Admin',
    role: 'admin',
    api: 'v1',
  },
  // API keys (a signed-in admin only; keys never manage keys)
  {
    method: 'GET',
    path: '/api/v1/keys',
    family: 'organizations',
    operation: 'listApiKeys',
    access: 'session',
    scope: 'Admin',
    role: 'admin',
    api: 'v1',
  },
  {
    method: 'POST',
    path: '/api/v1/keys',
    family: 'organizations',
    operation: 'createApiKey',
    access: 'session',
    scope: 'Admin',
    role: 'admin',
    api: 'v1',
  },
  {
    method: 'DELETE',
    path: '/api/v1/keys/{id}',
    family: 'organizations',
    operation: 'deleteApiKey',
    access: 'session',
    scope: 'Admin',
    role: 'admin',
    api: 'v1',
  },
  // Legacy (`/api/organizations/:id`; D11 names `/api/keys`)
  {
    method: 'GET',
    path: '/api/organizations/{id}',
    family: 'organizations',
    operation: 'getOrganization',
    scope: 'Admin',
    role: 'admin',
    api: 'legacy',
    successor: '/api/v1/organizations/{id}',
  },
  {
    method: 'PUT',
    path: '/api/organizations/{id}',
    family: 'organizations',
    operation: 'updateOrganization',
    scope: 'Admin',
    role: 'admin',
    api: 'legacy',
    successor: '/api/v1/organizations/{id}',
  },
  {
    method: 'GET',
    path: '/api/keys',
    family: 'organizations',
    operation: 'listApiKeys',
    access: 'session',
    scope: 'Admin',
    role: 'admin',
    api: 'legacy',
    successor: '/api/v1/keys',
  },
  {
    method: 'POST',
    path: '/api/keys',
    family: 'organizations',
    operation: 'createApiKey',
    access: 'session',
    scope: 'Admin',
    role: 'admin',
    api: 'legacy',
    successor: '/api/v1/keys',
  },
  {
    method: 'DELETE',
    path: '/api/keys/{id}',
    family: 'organizations',
    operation: 'deleteApiKey',
    access: 'session',
    scope: 'Admin',
    role: 'admin',
    api: 'legacy',
    successor: '/api/v1/keys/{id}',
  },
];
