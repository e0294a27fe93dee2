import { ORGANIZATIONS_ROUTES } from '../../layers/core/http/routes/organizations';
import type { EndpointFamily } from '../endpoint-family';

/** The organization, its settings and its API keys: the table only. */
export const family: EndpointFamily = {
  name: 'organizations',
  routes: ORGANIZATIONS_ROUTES,
  needs: {},
  entry: () => require('./handler') as typeof import('./handler'),
};
