import type { Route } from '../route';

/** Analytics: the `analytics` function's rows of the route table (layers/core/http/routes/route-table.ts). */
export const ANALYTICS_ROUTES: readonly Route[] = [
  // Analytics (Admin)
  {
    method: 'GET',
    path: '/api/v1/analytics',
    family: 'analytics',
    operation: 'getAnalytics',
    scope: 'Admin',
    role: 'readonly',
    api: 'v1',
  },
  {
    method: 'GET',
    path: '/api/analytics/charts/dashboard',
    family: 'analytics',
    operation: 'getDashboard',
    scope: 'Admin',
    role: 'readonly',
    api: 'legacy',
    successor: '/api/v1/analytics',
  },
];
