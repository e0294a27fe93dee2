import { SSO_ROUTES } from '../../layers/core/http/routes/sso';
import { clientSecretContext } from '../../layers/core/use-cases/sso/sso-configuration';
import type { EndpointFamily } from '../endpoint-family';

/**
 * SSO: configures identity providers and signs people in through them.
 * It seals and opens OIDC client secrets; browsers reach the service at
 * the console's origin, so the providers' callbacks land there and the
 * session cookie is the console's.
 */
export const family: EndpointFamily = {
  name: 'sso',
  routes: SSO_ROUTES,
  needs: {
    secretsKey: [{ purpose: clientSecretContext('').purpose, use: 'seal-and-open' }],
    environment: ['publicUrl'],
  },
  entry: () => require('./handler') as typeof import('./handler'),
};
