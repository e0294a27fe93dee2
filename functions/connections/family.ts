import { connectorTokenContext } from '../../layers/core/domain/connector';
import { CONNECTIONS_ROUTES } from '../../layers/core/http/routes/connections';
import type { EndpointFamily } from '../endpoint-family';

/**
 * Connector sign-in and revoking grants: it seals the providers'
 * tokens with the providers' apps, and the provider sends the
 * administrator back to the console's origin.
 */
export const family: EndpointFamily = {
  name: 'connections',
  routes: CONNECTIONS_ROUTES,
  needs: {
    secretsKey: [{ purpose: connectorTokenContext('', '').purpose ?? '', use: 'seal-and-open' }],
    connectorApps: true,
    environment: ['publicUrl'],
  },
  entry: () => require('./handler') as typeof import('./handler'),
};
