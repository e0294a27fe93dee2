// The package's own transport pieces, required by their subpaths: its entry
// point (`@opensearch-project/opensearch`) builds `Client`, which loads some
// 300 API modules at import, and the service calls nine of them. The
// `api/...` imports are types only (the request shapes the package
// documents), erased at build time.
import type { Bulk_Request } from '@opensearch-project/opensearch/api/_core/bulk';
import type { Count_Request } from '@opensearch-project/opensearch/api/_core/count';
import type { DeleteByQuery_Request } from '@opensearch-project/opensearch/api/_core/deleteByQuery';
import type { Msearch_Request } from '@opensearch-project/opensearch/api/_core/msearch';
import type { Search_Request } from '@opensearch-project/opensearch/api/_core/search';
import type { Indices_Create_Request } from '@opensearch-project/opensearch/api/indices/create';
import type { Indices_Exists_Request } from '@opensearch-project/opensearch/api/indices/exists';
import type { Indices_GetMapping_Request } from '@opensearch-project/opensearch/api/indices/getMapping';
import type { Indices_PutMapping_Request } from '@opensearch-project/opensearch/api/indices/putMapping';
import Connection from '@opensearch-project/opensearch/lib/Connection.js';
import { ConfigurationError } from '@opensearch-project/opensearch/lib/errors.js';
import { ConnectionPool } from '@opensearch-project/opensearch/lib/pool/index.js';
import Serializer from '@opensearch-project/opensearch/lib/Serializer.js';
import Transport, {
  type ApiResponse,
  type TransportRequestOptions,
  type TransportRequestParams,
} from '@opensearch-project/opensearch/lib/Transport.js';

/** Per-call options the adapters use (a longer timeout for writes). */
export type CallOptions = Pick<TransportRequestOptions, 'requestTimeout'>;

/** `{ body, statusCode, headers, … }`, as the full client answers. */
export type SearchResponse = ApiResponse;

/**
 * The OpenSearch calls the service makes, with the official client's call and
 * answer shapes: failures reject with the package's own errors
 * (`ResponseError` for a 4xx/5xx answer, `ConnectionError`, `TimeoutError`, …).
 * What the adapters use, which a client connected at its first call
 * (search-client-on-first-use.ts) provides too.
 */
export interface SearchCalls {
  search(params: Search_Request, options?: CallOptions): Promise<SearchResponse>;
  msearch(params: Msearch_Request, options?: CallOptions): Promise<SearchResponse>;
  count(params: Count_Request, options?: CallOptions): Promise<SearchResponse>;
  bulk(params: Bulk_Request, options?: CallOptions): Promise<SearchResponse>;
  deleteByQuery(params: DeleteByQuery_Request, options?: CallOptions): Promise<SearchResponse>;
  readonly indices: {
    /** Answers `body: true` or `body: false` (a 404 to a HEAD is not an error). */
    exists(params: Indices_Exists_Request, options?: CallOptions): Promise<SearchResponse>;
    create(params: Indices_Create_Request, options?: CallOptions): Promise<SearchResponse>;
    getMapping(params: Indices_GetMapping_Request, options?: CallOptions): Promise<SearchResponse>;
    putMapping(params: Indices_PutMapping_Request, options?: CallOptions): Promise<SearchResponse>;
  };
}

/** The calls, on the package's transport to one node. */
export interface SearchClient extends SearchCalls {
  /** The nodes the client talks to (one, in this service). */
  readonly connectionPool: ConnectionPool;
}

export interface SearchClientOptions {
  /** The cluster's URL, e.g. `http://localhost:9200` or `https://search-….es.amazonaws.com`. */
  readonly node: string;
  readonly requestTimeout: number;
  readonly maxRetries: number;
  /** A signing transport and connection (`AwsSigv4Signer(…)`), or the package's plain ones. */
  readonly Transport?: typeof Transport;
  readonly Connection?: typeof Connection;
}

/** A request as the package's API functions build it: the rest of `params` is the query string. */
interface Call {
  readonly method: string;
  readonly path: string;
  readonly body?: TransportRequestParams['body'];
  readonly bulkBody?: TransportRequestParams['bulkBody'];
  readonly querystring: Record<string, unknown>;
}

/** A path segment encoded as the package encodes it (a list becomes `a,b`, then percent-encoded). */
function segment(value: string | readonly string[] | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  return encodeURIComponent(String(value));
}

function pathOf(...parts: (string | undefined)[]): string {
  return ['', ...parts.filter((part) => part !== undefined)].join('/');
}

function required<T>(name: string, value: T | undefined): T {
  if (value === undefined || value === null) {
    throw new ConfigurationError(`Missing required parameter: ${name}`);
  }
  return value;
}

/**
 * The same requests the package's `api/_core/*` and `api/indices/*`
 * functions send (method, path, query string, JSON or NDJSON body), for the
 * nine calls the service makes; kept here so the other ~290 are never loaded.
 */
const calls = {
  search: ({ index, body, ...querystring }: Search_Request): Call => ({
    method: body ? 'POST' : 'GET',
    path: pathOf(segment(index), '_search'),
    body: body ?? '',
    querystring,
  }),
  msearch: ({ index, body, ...querystring }: Msearch_Request): Call => ({
    method: body ? 'POST' : 'GET',
    path: pathOf(segment(index), '_msearch'),
    bulkBody: body as TransportRequestParams['bulkBody'],
    querystring,
  }),
  count: ({ index, body, ...querystring }: Count_Request): Call => ({
    method: body ? 'POST' : 'GET',
    path: pathOf(segment(index), '_count'),
    body: body ?? '',
    querystring,
  }),
  bulk: ({ index, body, ...querystring }: Bulk_Request): Call => ({
    method: index === undefined ? 'POST' : 'PUT',
    path: pathOf(segment(index), '_bulk'),
    bulkBody: required('body', body) as TransportRequestParams['bulkBody'],
    querystring,
  }),
  deleteByQuery: ({ index, body, ...querystring }: DeleteByQuery_Request): Call => ({
    method: 'POST',
    path: pathOf(required('index', segment(index)), '_delete_by_query'),
    body: required('body', body),
    querystring,
  }),
  exists: ({ index, ...querystring }: Indices_Exists_Request): Call => ({
    method: 'HEAD',
    path: pathOf(required('index', segment(index))),
    body: '',
    querystring,
  }),
  create: ({ index, body, ...querystring }: Indices_Create_Request): Call => ({
    method: 'PUT',
    path: pathOf(required('index', segment(index))),
    body: body ?? '',
    querystring,
  }),
  getMapping: ({ index, ...querystring }: Indices_GetMapping_Request): Call => ({
    method: 'GET',
    path: pathOf(segment(index), '_mapping'),
    body: '',
    querystring,
  }),
  putMapping: ({ index, body, ...querystring }: Indices_PutMapping_Request): Call => ({
    method: 'POST',
    path: pathOf(required('index', segment(index)), '_mapping'),
    body: required('body', body),
    querystring,
  }),
};

/**
 * A client with only the calls the service makes, on the package's own
 * Transport, ConnectionPool, Connection and Serializer, configured as
 * `new Client(…)` configures them (no sniffing, round-robin, no events
 * listened to). Loads in a few milliseconds where `Client` takes ~25.
 *
 * @example
 * const client = createSearchClient({ node: 'http://localhost:9200', requestTimeout: 5000, maxRetries: 1 });
 * const { body } = await client.count({ index: 'svc-chunks-*' });
 */
export function createSearchClient(options: SearchClientOptions): SearchClient {
  // Nothing listens to the client's events; the transport and pool still emit them.
  const emit = (): boolean => false;
  const serializer = new Serializer();
  const connectionPool = new ConnectionPool({
    Connection: options.Connection ?? Connection,
    emit,
    sniffEnabled: false,
    pingTimeout: 3000,
    resurrectStrategy: 'ping',
    ssl: null,
    agent: null,
    proxy: null,
    auth: null,
  } as unknown as ConstructorParameters<typeof ConnectionPool>[0]);
  connectionPool.addConnection(options.node);
  const SigningOrPlainTransport = options.Transport ?? Transport;
  const transport = new SigningOrPlainTransport({
    emit,
    connectionPool,
    serializer,
    maxRetries: options.maxRetries,
    requestTimeout: options.requestTimeout,
    sniffInterval: false,
    sniffOnStart: false,
    sniffOnConnectionFault: false,
    sniffEndpoint: '_nodes/_all/http',
    suggestCompression: false,
    compression: false,
    headers: {},
    nodeFilter: null,
    nodeSelector: 'round-robin',
    generateRequestId: null,
    name: 'opensearch-js',
    opaqueIdPrefix: null,
    context: null,
  } as unknown as ConstructorParameters<typeof Transport>[0]);

  // A missing parameter rejects (as the package's API functions do) rather than throwing.
  const sender =
    <P>(build: (params: P) => Call) =>
    async (params: P, options: CallOptions = {}): Promise<SearchResponse> =>
      transport.request({ ...build(params) }, options);

  return {
    search: sender(calls.search),
    msearch: sender(calls.msearch),
    count: sender(calls.count),
    bulk: sender(calls.bulk),
    deleteByQuery: sender(calls.deleteByQuery),
    indices: {
      exists: sender(calls.exists),
      create: sender(calls.create),
      getMapping: sender(calls.getMapping),
      putMapping: sender(calls.putMapping),
    },
    connectionPool,
  };
}
