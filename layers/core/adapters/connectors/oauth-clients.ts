import type { Clock } from '../../ports/clock.port';
import type { ProviderOAuthClients } from '../../ports/connector.port';
import type { OutboundPolicy } from '../net/outbound-policy';
import {
  ATLASSIAN_ENDPOINTS,
  type AtlassianEndpoints,
  ConfluenceOAuth,
} from './confluence/confluence-oauth';
import {
  GOOGLE_ENDPOINTS,
  GoogleDriveOAuth,
  type GoogleEndpoints,
} from './google-drive/google-oauth';
import { type ProviderFetch, providerFetch } from './oauth-http';
import {
  MICROSOFT_ENDPOINTS,
  type MicrosoftEndpoints,
  MicrosoftOAuth,
} from './sharepoint/microsoft-oauth';
import { SLACK_ENDPOINTS, type SlackEndpoints, SlackOAuth } from './slack/slack-oauth';

/** Where each provider's endpoints are (the real ones unless settings point elsewhere, e.g. tests' stand-ins). */
export interface ConnectorEndpoints {
  readonly confluence: AtlassianEndpoints;
  readonly slack: SlackEndpoints;
  readonly google_drive: GoogleEndpoints;
  readonly sharepoint: MicrosoftEndpoints;
}

export const PROVIDER_ENDPOINTS: ConnectorEndpoints = {
  confluence: ATLASSIAN_ENDPOINTS,
  slack: SLACK_ENDPOINTS,
  google_drive: GOOGLE_ENDPOINTS,
  sharepoint: MICROSOFT_ENDPOINTS,
};

export interface ConnectorOptions {
  readonly policy: OutboundPolicy;
  readonly clock: Clock;
  readonly endpoints?: Partial<ConnectorEndpoints>;
}

/**
 * The providers' OAuth clients only (the `connections` family: sign-in and
 * revocation), without the readers and their parsers. Every request goes
 * through the SSRF guard's fetch under `policy` (https only in the cloud).
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
    oauth: {
      confluence: new ConfluenceOAuth(fetch, options.clock, endpoints.confluence),
      slack: new SlackOAuth(fetch, options.clock, endpoints.slack),
      google_drive: new GoogleDriveOAuth(fetch, options.clock, endpoints.google_drive),
      sharepoint: new MicrosoftOAuth(fetch, options.clock, endpoints.sharepoint),
    },
  };
}
