import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { AwsSigv4Signer } from '@opensearch-project/opensearch/aws';
import { createSearchClient, type SearchClient } from './search-client';

export interface OpenSearchClientOptions {
  /**
   * A cluster reached directly, e.g. `http://localhost:9200` (`OPENSEARCH_URL`
   * on one machine): plain HTTP, or whatever the URL says, with no signing.
   * Takes precedence over `endpoint`.
   */
  readonly url?: string;
  /** The Amazon OpenSearch Service domain endpoint, with or without `https://`. */
  readonly endpoint?: string;
  /** The domain's region, for SigV4. Required with `endpoint`. */
  readonly region?: string;
  /** How long one request may take before it counts as an outage. */
  readonly timeoutMs: number;
  /**
   * Retries after a connection failure, a timeout or a 502/503/504.
   * @default 1 (one quick retry covers a dropped keep-alive connection without doubling a slow search)
   */
  readonly maxRetries?: number;
}

/**
 * The OpenSearch client both runtimes use. In the cloud every request is
 * SigV4-signed for the `es` service with the default credential chain (the
 * function's role): the domain's access policy admits only roles granted
 * through `SearchDomain.grantReadWrite`. Locally, `OPENSEARCH_URL` points at a
 * cluster that needs no signing.
 *
 * No request is made here (cold starts: no network at import or build time).
 *
 * @example
 * createOpenSearchClient({ endpoint: 'search-svc-abc.eu-west-1.es.amazonaws.com', region: 'eu-west-1', timeoutMs: 5000 });
 * createOpenSearchClient({ url: 'http://localhost:9200', timeoutMs: 5000 });
 */
export function createOpenSearchClient(options: OpenSearchClientOptions): SearchClient {
  // Never sniffs: Lambda functions reach one endpoint, and sniffing would try node addresses they cannot reach.
  const common = {
    requestTimeout: options.timeoutMs,
    maxRetries: options.maxRetries ?? 1,
  };
  if (options.url) return createSearchClient({ ...common, node: options.url });
  if (!options.endpoint || !options.region) {
    throw new Error('OpenSearch needs either a URL (OPENSEARCH_URL) or an endpoint and a region');
  }
  const node = /^https?:\/\//.test(options.endpoint)
    ? options.endpoint
    : `https://${options.endpoint}`;
  const signing = AwsSigv4Signer({
    region: options.region,
    service: 'es',
    // Given explicitly so the bundle does not depend on the signer finding an SDK at run time.
    getCredentials: defaultProvider(),
  });
  return createSearchClient({
    ...common,
    node,
    Transport: signing.Transport,
    Connection: signing.Connection,
  });
}
