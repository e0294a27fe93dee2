import { USERS_ROUTES } from '../../layers/core/http/routes/users';
import type { EndpointFamily } from '../endpoint-family';

/** Users and groups: the table, and mail for invitations. */
export const family: EndpointFamily = {
  name: 'users',
  routes: USERS_ROUTES,
  needs: { mail: true },
  entry: () => require('./handler') as typeof import('./handler'),
};
