import type { Clock } from '../../ports/clock.port';
import type { ProviderOAuthClients } from '../../ports/connector.port';
import type { OutboundPolicy } from '../net/outbound-policy';
import {
  ATLASSIAN_ENDPOINTS,
  type AtlassianEndpoints,
  ConfluenceOAuth,
} from './confluence/confluence-oauth';
import { type ProviderFetch, providerFetch } from './oauth-http';

/** Where each provider's endpoints are (P150: the real ones unless settings point elsewhere, e.g. tests' stand-ins). */
export interface ConnectorEndpoints {
  readonly confluence: AtlassianEndpoints;
}

export const PROVIDER_ENDPOINTS: ConnectorEndpoints = { confluence: ATLASSIAN_ENDPOINTS };

export interface ConnectorOptions {
  readonly policy: OutboundPolicy;
  readonly clock: Clock;
  readonly endpoints?: Partial<ConnectorEndpoints>;
}

/**
 * The providers' OAuth clients only (the `connections` family: sign-in and
 * revocation), without the readers and their parsers. Every request goes
 * through D35's fetch under `policy` (https only in the cloud).
 */
export function connectorOAuthClients(options: ConnectorOptions): {
  readonly fetch: ProviderFetch;
  readonly oauth: ProviderOAuthClients;
  readonly endpoints: ConnectorEndpoints;
} {
  const endpoints = { ...PROVIDER_ENDPOINTS, ...options.endpoints };
  const fetch = providerFetch(options.policy);
  return {
    fetch,
    endpoints,
    oauth: { confluence: new ConfluenceOAuth(fetch, options.clock, endpoints.confluence) },
  };
}
