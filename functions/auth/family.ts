import { AUTH_ROUTES } from '../../layers/core/http/routes/auth';
import type { EndpointFamily } from '../endpoint-family';

/** Signing in and out: the table, and mail for password resets. */
export const family: EndpointFamily = {
  name: 'auth',
  routes: AUTH_ROUTES,
  needs: { mail: true },
  entry: () => require('./handler') as typeof import('./handler'),
};
