import type { Route } from '../layers/core/http/route';

/**
 * THE route table: every endpoint, the Lambda (family) that serves it, the
 * scope it needs (D9) and its path family (D5, D7). The CDK API construct
 * builds API Gateway from it and the local gateway routes by it, so the two
 * cannot drift. Legacy rows name their v1 successor (D7, D8).
 */
export const ROUTES: readonly Route[] = [
  // Agents (v1)
  {
    method: 'GET',
    path: '/api/v1/agents',
    family: 'agents',
    operation: 'listAgents',
    scope: 'Read',
    api: 'v1',
  },
  {
    method: 'POST',
    path: '/api/v1/agents',
    family: 'agents',
    operation: 'createAgent',
    scope: 'Write',
    api: 'v1',
  },
  {
    method: 'GET',
    path: '/api/v1/agents/{id}',
    family: 'agents',
    operation: 'getAgent',
    scope: 'Read',
    api: 'v1',
  },
  {
    method: 'PUT',
    path: '/api/v1/agents/{id}',
    family: 'agents',
    operation: 'updateAgent',
    scope: 'Write',
    api: 'v1',
  },
  {
    method: 'DELETE',
    path: '/api/v1/agents/{id}',
    family: 'agents',
    operation: 'deleteAgent',
    scope: 'Write',
    api: 'v1',
  },
  // Agents (legacy, D8: /api/ai-agent-managers)
  {
    method: 'GET',
    path: '/api/ai-agent-managers',
    family: 'agents',
    operation: 'listAgents',
    scope: 'Read',
    api: 'legacy',
    successor: '/api/v1/agents',
  },
  {
    method: 'POST',
    path: '/api/ai-agent-managers',
    family: 'agents',
    operation: 'createAgent',
    scope: 'Write',
    api: 'legacy',
    successor: '/api/v1/agents',
  },
  {
    method: 'GET',
    path: '/api/ai-agent-managers/{id}',
    family: 'agents',
    operation: 'getAgent',
    scope: 'Read',
    api: 'legacy',
    successor: '/api/v1/agents/{id}',
  },
  {
    method: 'PUT',
    path: '/api/ai-agent-managers/{id}',
    family: 'agents',
    operation: 'updateAgent',
    scope: 'Write',
    api: 'legacy',
    successor: '/api/v1/agents/{id}',
  },
  {
    method: 'DELETE',
    path: '/api/ai-agent-managers/{id}',
    family: 'agents',
    operation: 'deleteAgent',
    scope: 'Write',
    api: 'legacy',
    successor: '/api/v1/agents/{id}',
  },

  // Data sources (v1)
  {
    method: 'GET',
    path: '/api/v1/data-sources',
    family: 'data-sources',
    operation: 'listDataSources',
    scope: 'Read',
    api: 'v1',
  },
  {
    method: 'POST',
    path: '/api/v1/data-sources',
    family: 'data-sources',
    operation: 'createDataSource',
    scope: 'Write',
    api: 'v1',
  },
  {
    method: 'GET',
    path: '/api/v1/data-sources/{id}',
    family: 'data-sources',
    operation: 'getDataSource',
    scope: 'Read',
    api: 'v1',
  },
  {
    method: 'PUT',
    path: '/api/v1/data-sources/{id}',
    family: 'data-sources',
    operation: 'updateDataSource',
    scope: 'Write',
    api: 'v1',
  },
  {
    method: 'DELETE',
    path: '/api/v1/data-sources/{id}',
    family: 'data-sources',
    operation: 'deleteDataSource',
    scope: 'Write',
    api: 'v1',
  },
  {
    method: 'POST',
    path: '/api/v1/data-sources/{id}/sync',
    family: 'data-sources',
    operation: 'syncDataSource',
    scope: 'Write',
    api: 'v1',
  },
  {
    method: 'GET',
    path: '/api/v1/data-sources/{id}/status',
    family: 'data-sources',
    operation: 'getSyncStatus',
    scope: 'Read',
    api: 'v1',
  },
  // Data sources (legacy, D8: /api/data-specs, /process = sync)
  {
    method: 'GET',
    path: '/api/data-specs',
    family: 'data-sources',
    operation: 'listDataSources',
    scope: 'Read',
    api: 'legacy',
    successor: '/api/v1/data-sources',
  },
  {
    method: 'POST',
    path: '/api/data-specs',
    family: 'data-sources',
    operation: 'createDataSource',
    scope: 'Write',
    api: 'legacy',
    successor: '/api/v1/data-sources',
  },
  {
    method: 'POST',
    path: '/api/data-specs/{id}/process',
    family: 'data-sources',
    operation: 'syncDataSource',
    scope: 'Write',
    api: 'legacy',
    successor: '/api/v1/data-sources/{id}/sync',
  },
];

/** The Lambda families, one function each, in the order they appear in the table. */
export const FAMILIES: readonly string[] = [...new Set(ROUTES.map((route) => route.family))];
