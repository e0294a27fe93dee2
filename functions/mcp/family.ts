import { modelKeySealingContext } from '../../layers/core/domain/model-key';
import { MCP_ROUTES } from '../../layers/core/http/routes/mcp';
import type { EndpointFamily } from '../endpoint-family';

/**
 * The Model Context Protocol server (POST /api/v1/mcp): its tools answer as
 * the query family does (the index, the model provider, organizations' own
 * model keys, opened here and never sealed) and search as the search family
 * does.
 */
export const family: EndpointFamily = {
  name: 'mcp',
  routes: MCP_ROUTES,
  needs: {
    // Each answer is one JSON response (no stream), so API Gateway waits
    // 29 s for it at most; the function gives up just before.
    timeoutSeconds: 28,
    network: 'search-domain',
    search: true,
    models: 'answers',
    secretsKey: [{ purpose: modelKeySealingContext('', '').purpose, use: 'open' }],
  },
  entry: () => require('./handler') as typeof import('./handler'),
};
