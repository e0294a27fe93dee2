import { OpenSearchRetrievalIndex } from '../../adapters/opensearch/opensearch-retrieval-index';
import { searchClientOnFirstUse } from '../../adapters/opensearch/search-client-on-first-use';
import { parseCloudConfig } from '../../config';
import type { RetrievalIndex } from '../../ports/retrieval-index.port';

/** How long one OpenSearch request may take before it counts as an outage (retried once). */
export const OPENSEARCH_TIMEOUT_MS = 10_000;

/**
 * The chunk index: the stack's OpenSearch domain, SigV4-signed with the
 * function's role. The client (the package's transport and the signer) is
 * loaded and built at the first call to the index, not at init: requests
 * refused before they search never load it.
 */
export function cloudRetrievalIndex(): RetrievalIndex {
  const config = parseCloudConfig('search');
  return new OpenSearchRetrievalIndex({
    client: searchClientOnFirstUse(async () =>
      (await import('../../adapters/opensearch/client')).createOpenSearchClient({
        endpoint: config.OPENSEARCH_ENDPOINT,
        region: config.AWS_REGION,
        timeoutMs: OPENSEARCH_TIMEOUT_MS,
      }),
    ),
  });
}
