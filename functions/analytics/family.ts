import { ANALYTICS_ROUTES } from '../../layers/core/http/routes/analytics';
import type { EndpointFamily } from '../endpoint-family';

/** Analytics (usage and the dashboard): the table only. */
export const family: EndpointFamily = {
  name: 'analytics',
  routes: ANALYTICS_ROUTES,
  needs: {},
  entry: () => require('./handler') as typeof import('./handler'),
};
