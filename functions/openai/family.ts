import { modelKeySealingContext } from '../../layers/core/domain/model-key';
import { OPENAI_ROUTES } from '../../layers/core/http/routes/openai';
import type { EndpointFamily } from '../endpoint-family';

/**
 * OpenAI-compatible chat completions (GET /api/v1/openai/models, POST
 * /api/v1/openai/chat/completions): answers as the query family does (the
 * index, the model provider, organizations' own model keys, opened here and
 * never sealed), streamed when asked.
 */
export const family: EndpointFamily = {
  name: 'openai',
  routes: OPENAI_ROUTES,
  needs: {
    // Completions stream, as query answers do: the same minute, with keep-alive comments.
    timeoutSeconds: 60,
    network: 'search-domain',
    search: true,
    models: 'answers',
    secretsKey: [{ purpose: modelKeySealingContext('', '').purpose, use: 'open' }],
  },
  entry: () => require('./handler') as typeof import('./handler'),
};
