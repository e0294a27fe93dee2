import type { Route } from '../route';

/**
 * Evaluations (issue 11 item 5): the `evals` function's rows of the route
 * table (layers/core/http/routes/route-table.ts). Admin scope (every endpoint not named). Roles:
 * starting a run takes `configure`, who configures the agents
 * being measured, and spends model tokens; reading runs is a view
 * (`readonly`), as analytics is. v1 only: the spec names no legacy path
 * for evaluations.
 */
export const EVALS_ROUTES: readonly Route[] = [
  {
    method: 'GET',
    path: '/api/v1/evals',
    family: 'evals',
    operation: 'listEvaluations',
    scope: 'Admin',
    role: 'readonly',
    api: 'v1',
  },
  {
    method: 'POST',
    path: '/api/v1/evals',
    family: 'evals',
    operation: 'startEvaluation',
    scope: 'Admin',
    role: 'configure',
    api: 'v1',
    spendsTokens: true,
  },
  {
    method: 'GET',
    path: '/api/v1/evals/{id}',
    family: 'evals',
    operation: 'getEvaluation',
    scope: 'Admin',
    role: 'readonly',
    api: 'v1',
  },
];
