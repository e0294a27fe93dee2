import { AGENTS_ROUTES } from '../../layers/core/http/routes/agents';
import type { EndpointFamily } from '../endpoint-family';

/** Agents: the table only (model keys are looked up, never opened). */
export const family: EndpointFamily = {
  name: 'agents',
  routes: AGENTS_ROUTES,
  needs: {},
  entry: () => require('./handler') as typeof import('./handler'),
};
