import { randomUUID } from 'node:crypto';
import { Client } from '@opensearch-project/opensearch';
import { createOpenSearchClient } from '../../../layers/core/adapters/opensearch/client';
import { chunkIndexPattern } from '../../../layers/core/adapters/opensearch/index-definition';
import { OpenSearchRetrievalIndex } from '../../../layers/core/adapters/opensearch/opensearch-retrieval-index';

/**
 * An `OpenSearchRetrievalIndex` on the cluster at `url`, with index names of
 * its own (`svc-test-<random>-…`) so runs never see each other's chunks, and
 * a `cleanup` that deletes those indexes: the `makeIndex` shape the shared
 * contract suite takes.
 */
export async function makeLiveOpenSearchIndex(url: string) {
  const client = createOpenSearchClient({ url, timeoutMs: 10_000 });
  const prefix = `svc-test-${randomUUID().slice(0, 8)}`;
  const index = new OpenSearchRetrievalIndex({ client, indexPrefix: prefix });
  return {
    index,
    async cleanup(): Promise<void> {
      // The service's client has only the calls the service makes; cleaning up needs the full one.
      const admin = new Client({ node: url });
      // By name: a wildcard delete is refused where action.destructive_requires_name is on.
      const found = await admin.indices.get({
        index: chunkIndexPattern(prefix),
        allow_no_indices: true,
      });
      const names = Object.keys(found.body);
      if (names.length > 0) await admin.indices.delete({ index: names });
      await admin.close();
    },
  };
}
