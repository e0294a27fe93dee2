import type { Route } from '../route';

/**
 * Model keys: the `model-keys` function's rows of the route table
 * (layers/core/http/routes/route-table.ts). Admin scope and the admin role: a key spends the
 * organization's money at its provider. v1 only: the spec names no
 * legacy path for them.
 */
export const MODEL_KEYS_ROUTES: readonly Route[] = [
  {
    method: 'GET',
    path: '/api/v1/model-keys',
    family: 'model-keys',
    operation: 'listModelKeys',
    scope: 'Admin',
    role: 'admin',
    api: 'v1',
  },
  {
    method: 'POST',
    path: '/api/v1/model-keys',
    family: 'model-keys',
    operation: 'createModelKey',
    scope: 'Admin',
    role: 'admin',
    api: 'v1',
  },
  {
    method: 'GET',
    path: '/api/v1/model-keys/{id}',
    family: 'model-keys',
    operation: 'getModelKey',
    scope: 'Admin',
    role: 'admin',
    api: 'v1',
  },
  {
    method: 'DELETE',
    path: '/api/v1/model-keys/{id}',
    family: 'model-keys',
    operation: 'deleteModelKey',
    scope: 'Admin',
    role: 'admin',
    api: 'v1',
  },
];
