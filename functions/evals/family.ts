import { EVALS_ROUTES } from '../../layers/core/http/routes/evals';
import type { EndpointFamily } from '../endpoint-family';

/** Evaluations: starting one queues its run for the eval worker; never the query pipeline itself. */
export const family: EndpointFamily = {
  name: 'evals',
  routes: EVALS_ROUTES,
  needs: { sendsTo: ['evaluations'] },
  entry: () => require('./handler') as typeof import('./handler'),
};
