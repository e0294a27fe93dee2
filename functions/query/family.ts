import { modelKeySealingContext } from '../../layers/core/domain/model-key';
import { QUERY_ROUTES } from '../../layers/core/http/routes/query';
import type { EndpointFamily } from '../endpoint-family';

/**
 * Query (POST /api/v1/query, legacy /api/chat): retrieves, answers with the
 * model provider or an organization's own model key (opened here, never
 * sealed), and streams the answer.
 */
export const family: EndpointFamily = {
  name: 'query',
  routes: QUERY_ROUTES,
  needs: {
    // Its routes stream, so API Gateway may wait past the 29 s of a buffered
    // response (up to 15 minutes; the integration gets this same timeout). A
    // minute covers retrieval (10 s OpenSearch requests) and a model writing
    // a long answer; the stream carries keep-alive comments every 15 s, well
    // inside API Gateway's 5-minute idle timeout for regional APIs.
    timeoutSeconds: 60,
    network: 'search-domain',
    search: true,
    models: 'answers',
    secretsKey: [{ purpose: modelKeySealingContext('', '').purpose, use: 'open' }],
  },
  entry: () => require('./handler') as typeof import('./handler'),
};
