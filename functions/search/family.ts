import { SEARCH_ROUTES } from '../../layers/core/http/routes/search';
import type { EndpointFamily } from '../endpoint-family';

/**
 * Semantic search: retrieves from the chunk index with the question
 * embedded. Also lists a data source's documents and previews their chunks,
 * which read the index.
 */
export const family: EndpointFamily = {
  name: 'search',
  routes: SEARCH_ROUTES,
  needs: {
    // An OpenSearch request may take 10 s and is retried once
    // (layers/core/wiring/cloud/cloud-retrieval.ts): the function outlives
    // both, to answer an outage with its 503 rather than be cut off.
    // Under API Gateway's 29 s.
    timeoutSeconds: 25,
    network: 'search-domain',
    search: true,
    models: 'embeddings',
  },
  entry: () => require('./handler') as typeof import('./handler'),
};
