import type { ConnectorType } from '../../domain/connector';
import type { ProviderOAuthClients } from '../../ports/connector.port';
import { ConfluenceReader } from './confluence/confluence-reader';
import type { ConnectorReader } from './connector-reader';
import { type ConnectorOptions, connectorOAuthClients } from './oauth-clients';
import type { ProviderFetch } from './oauth-http';

export type { ConnectorEndpoints } from './oauth-clients';

export interface Connectors {
  readonly fetch: ProviderFetch;
  readonly oauth: ProviderOAuthClients;
  readonly readers: Partial<Record<ConnectorType, ConnectorReader>>;
}

/**
 * The connectors built so far (issue 12), for the sync worker: Confluence
 * Cloud. Slack, Google Drive and SharePoint have no client yet: connecting
 * them answers 409 and says so, and their syncs fail with the reason.
 */
export function connectors(options: ConnectorOptions): Connectors {
  const { fetch, oauth, endpoints } = connectorOAuthClients(options);
  return {
    fetch,
    oauth,
    readers: { confluence: new ConfluenceReader(options.clock, endpoints.confluence) },
  };
}
