import { modelKeySealingContext } from '../../layers/core/domain/model-key';
import { MODEL_KEYS_ROUTES } from '../../layers/core/http/routes/model-keys';
import type { EndpointFamily } from '../endpoint-family';

/**
 * Organizations' model keys: sealed where they are registered (and
 * opened to check them with their provider); only the query family and the
 * eval worker open them besides.
 */
export const family: EndpointFamily = {
  name: 'model-keys',
  routes: MODEL_KEYS_ROUTES,
  needs: {
    secretsKey: [{ purpose: modelKeySealingContext('', '').purpose, use: 'seal-and-open' }],
  },
  entry: () => require('./handler') as typeof import('./handler'),
};
