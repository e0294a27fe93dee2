import { createOpenSearchClient } from '../../adapters/opensearch/client';
import { OpenSearchRetrievalIndex } from '../../adapters/opensearch/opensearch-retrieval-index';
import { parseCloudConfig } from '../../config';
import type { RetrievalIndex } from '../../ports/retrieval-index.port';

/** How long one OpenSearch request may take before it counts as an outage (retried once). */
export const OPENSEARCH_TIMEOUT_MS = 10_000;

/** The chunk index: the stack's OpenSearch domain, SigV4-signed with the function's role. */
export function cloudRetrievalIndex(): RetrievalIndex {
  const config = parseCloudConfig('search');
  return new OpenSearchRetrievalIndex({
    client: createOpenSearchClient({
      endpoint: config.OPENSEARCH_ENDPOINT,
      region: config.AWS_REGION,
      timeoutMs: OPENSEARCH_TIMEOUT_MS,
    }),
  });
}
