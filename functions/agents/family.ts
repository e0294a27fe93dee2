import { AGENTS_ROUTES } from '../../layers/core/http/routes/agents';
import type { EndpointFamily } from '../endpoint-family';

/**
 * Agents: the table only (model keys are looked up, never opened), and
 * which models the deployment answers with, so a model nothing can serve
 * is refused when an agent is saved.
 */
export const family: EndpointFamily = {
  name: 'agents',
  routes: AGENTS_ROUTES,
  needs: { environment: ['deploymentModels'] },
  entry: () => require('./handler') as typeof import('./handler'),
};
