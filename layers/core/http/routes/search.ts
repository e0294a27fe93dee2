import type { Route } from '../route';

/** Semantic search: the `search` function's rows of the route table (layers/core/http/routes/route-table.ts). */
export const SEARCH_ROUTES: readonly Route[] = [
  // Semantic search (Execute: /api/semantic-search = /api/v1/semantic-search)
  {
    method: 'POST',
    path: '/api/v1/semantic-search',
    family: 'search',
    operation: 'semanticSearch',
    scope: 'Execute',
    role: 'readonly',
    api: 'v1',
  },
  {
    method: 'POST',
    path: '/api/semantic-search',
    family: 'search',
    operation: 'semanticSearch',
    scope: 'Execute',
    role: 'readonly',
    api: 'legacy',
    successor: '/api/v1/semantic-search',
  },
];
