import type { ConnectorType } from '../../domain/connector';
import type { ProviderOAuthClients } from '../../ports/connector.port';
import type { FileParser } from '../../ports/file-parser.port';
import { ConfluenceReader } from './confluence/confluence-reader';
import type { ConnectorReader } from './connector-reader';
import { PROVIDER_FILE_LIMITS } from './file-item';
import { GoogleDriveReader } from './google-drive/google-drive-reader';
import { type ConnectorOptions, connectorOAuthClients } from './oauth-clients';
import { type ProviderFetch, providerFetch } from './oauth-http';
import { SharePointReader } from './sharepoint/sharepoint-reader';
import { SlackReader } from './slack/slack-reader';

export type { ConnectorEndpoints } from './oauth-clients';

export interface Connectors {
  readonly fetch: ProviderFetch;
  readonly oauth: ProviderOAuthClients;
  readonly readers: Partial<Record<ConnectorType, ConnectorReader>>;
}

/**
 * The connectors built so far (issue 12), for the sync worker: Confluence
 * Cloud (pages, blog posts and attachments), Google Drive, Slack and
 * SharePoint / OneDrive (Microsoft Graph).
 */
export function connectors(
  options: ConnectorOptions & {
    /** Providers' files are parsed like uploads (on one machine, in the parsing process). */
    readonly fileParser: FileParser;
  },
): Connectors {
  const { fetch, oauth, endpoints } = connectorOAuthClients(options);
  // File downloads under the SSRF guard as well, with the file cap instead of the 10 MiB.
  const download = providerFetch(options.policy, PROVIDER_FILE_LIMITS.maxBytes);
  return {
    fetch,
    oauth,
    readers: {
      confluence: new ConfluenceReader(
        options.clock,
        endpoints.confluence,
        options.fileParser,
        download,
      ),
      slack: new SlackReader(endpoints.slack),
      google_drive: new GoogleDriveReader(endpoints.google_drive, options.fileParser),
      sharepoint: new SharePointReader(endpoints.sharepoint, options.fileParser, download),
    },
  };
}
