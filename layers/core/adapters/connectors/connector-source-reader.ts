import type { DataSource } from '../../domain/data-source';
import type { Clock } from '../../ports/clock.port';
import type { ProviderOAuth } from '../../ports/connector.port';
import type { ReadContext, SourceItem, SourceReader } from '../../ports/source-reader.port';
import { ConnectorGrant, type GrantDependencies } from '../../use-cases/connectors/connector-grant';
import type { ConnectorReader } from './connector-reader';
import type { ProviderFetch } from './oauth-http';
import { ProviderApi, type Sleep } from './provider-api';

/**
 * A connector source as the sync runner reads it: its grant opened
 * (refused with the reason when not connected), an API client over the SSRF guard's
 * fetch that renews tokens and honours rate limits, and the provider's reader.
 */
export class ConnectorSourceReader implements SourceReader {
  constructor(
    private readonly deps: GrantDependencies & { readonly clock: Clock },
    private readonly orgId: string,
    private readonly oauth: ProviderOAuth,
    private readonly fetch: ProviderFetch,
    private readonly reader: ConnectorReader,
    private readonly sleep?: Sleep,
  ) {}

  async *read(
    source: DataSource,
    signal: AbortSignal,
    context: ReadContext,
  ): AsyncIterable<SourceItem> {
    const grant = await ConnectorGrant.open(this.deps, this.oauth, this.orgId, source);
    const api = new ProviderApi(this.fetch, grant, this.deps.clock, signal, this.sleep);
    for await (const item of this.reader.read(source, grant, api, context)) {
      yield item;
      if (signal.aborted) return;
    }
  }

  expectedTotal(): number | null {
    return null;
  }
}
