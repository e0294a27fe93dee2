import { INTERACTIONS_ROUTES } from '../../layers/core/http/routes/interactions';
import type { EndpointFamily } from '../endpoint-family';

/** Interactions and their feedback: the table only. */
export const family: EndpointFamily = {
  name: 'interactions',
  routes: INTERACTIONS_ROUTES,
  needs: {},
  entry: () => require('./handler') as typeof import('./handler'),
};
