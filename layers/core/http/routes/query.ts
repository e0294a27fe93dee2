import type { Route } from '../route';

/** Query: the `query` function's rows of the route table (layers/core/http/routes/route-table.ts). */
export const QUERY_ROUTES: readonly Route[] = [
  // Query (Execute: /api/chat = /api/v1/query)
  {
    method: 'POST',
    path: '/api/v1/query',
    family: 'query',
    operation: 'query',
    scope: 'Execute',
    role: 'readonly',
    api: 'v1',
    streaming: true,
    spendsTokens: true,
  },
  {
    method: 'POST',
    path: '/api/chat',
    family: 'query',
    operation: 'query',
    scope: 'Execute',
    role: 'readonly',
    api: 'legacy',
    successor: '/api/v1/query',
    streaming: true,
    spendsTokens: true,
  },
];
