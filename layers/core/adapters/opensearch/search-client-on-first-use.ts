import type { CallOptions, SearchCalls, SearchResponse } from './search-client';

/**
 * The OpenSearch calls, with the client built by `connect` at the first call
 * rather than when the function starts. The package's transport, connection
 * pool, serializer and SigV4 signer are a fifth of the query and search
 * bundles; a request refused before it searches (no credentials, a bad body,
 * an unknown agent) never needs them. `connect` runs once; a failure to
 * build the client (a configuration error) rejects that call and the next
 * one tries again.
 *
 * @example
 * const client = searchClientOnFirstUse(async () =>
 *   (await import('./client')).createOpenSearchClient({ url, timeoutMs: 5000 }),
 * );
 */
export function searchClientOnFirstUse(connect: () => Promise<SearchCalls>): SearchCalls {
  let connected: Promise<SearchCalls> | undefined;
  const client = (): Promise<SearchCalls> => {
    connected ??= connect().catch((error: unknown) => {
      connected = undefined;
      throw error;
    });
    return connected;
  };
  const call =
    <P>(
      pick: (calls: SearchCalls) => (params: P, options?: CallOptions) => Promise<SearchResponse>,
    ) =>
    async (params: P, options?: CallOptions): Promise<SearchResponse> =>
      pick(await client())(params, options);
  return {
    search: call((calls) => calls.search),
    msearch: call((calls) => calls.msearch),
    count: call((calls) => calls.count),
    bulk: call((calls) => calls.bulk),
    deleteByQuery: call((calls) => calls.deleteByQuery),
    indices: {
      exists: call((calls) => calls.indices.exists),
      create: call((calls) => calls.indices.create),
      getMapping: call((calls) => calls.indices.getMapping),
      putMapping: call((calls) => calls.indices.putMapping),
    },
  };
}
