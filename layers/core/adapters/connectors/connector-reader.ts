import type { DataSource } from '../../domain/data-source';
import type { AccessGrant } from '../../ports/connector.port';
import type { ReadContext, SourceItem } from '../../ports/source-reader.port';
import type { ProviderApi } from './provider-api';

/**
 * One provider's reading of a connected source — its items as
 * `SourceItem`s, an inventory of what exists, checkpoints to resume from —
 * given the grant and an API client that renews tokens and honours rate
 * limits. The sync runner treats every connector alike.
 */
export interface ConnectorReader {
  read(
    source: DataSource,
    grant: AccessGrant,
    api: ProviderApi,
    context: ReadContext,
  ): AsyncIterable<SourceItem>;
}
