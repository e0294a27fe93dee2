import { Client, errors } from '@opensearch-project/opensearch';
import {
  createSearchClient,
  type SearchClient,
} from '../../../../layers/core/adapters/opensearch/search-client';
import { type RecordingOpenSearch, startRecordingOpenSearch } from './recording-opensearch';

/** The nine calls the service makes, each with the parameters its adapters pass. */
const CALLS: [string, (client: SearchClient) => Promise<unknown>][] = [
  [
    'search',
    (client) =>
      client.search({
        index: 'svc-chunks-a,svc-chunks-b',
        routing: 'org-1',
        ignore_unavailable: true,
        body: { size: 2, query: { match: { text: 'refund' } } },
      }),
  ],
  [
    'msearch',
    (client) =>
      client.msearch({
        body: [
          { index: 'svc-chunks-a', routing: 'org-1' },
          { size: 1, query: { match_all: {} } },
        ],
      }),
  ],
  ['count', (client) => client.count({ index: 'svc-chunks-*' })],
  [
    'bulk',
    (client) =>
      client.bulk(
        {
          refresh: 'wait_for',
          body: [{ index: { _index: 'svc-chunks-a', _id: 'c1' } }, { text: 'hello' }],
        },
        { requestTimeout: 1500 },
      ),
  ],
  [
    'deleteByQuery',
    (client) =>
      client.deleteByQuery({
        index: 'svc-chunks-*,-svc-chunks-a',
        routing: 'org-1',
        refresh: true,
        conflicts: 'proceed',
        body: { query: { term: { org_id: 'org-1' } } },
      }),
  ],
  ['indices.exists', (client) => client.indices.exists({ index: 'svc-chunks-a' })],
  [
    'indices.create',
    (client) =>
      client.indices.create({
        index: 'svc-chunks-a',
        body: { settings: { index: { knn: true } }, mappings: { properties: {} } },
      }),
  ],
  ['indices.getMapping', (client) => client.indices.getMapping({ index: 'svc-chunks-a' })],
  [
    'indices.putMapping',
    (client) =>
      client.indices.putMapping({
        index: 'svc-chunks-a',
        body: { properties: { heading: { type: 'text' } } },
      }),
  ],
];

describe('Function: createSearchClient', () => {
  let server: RecordingOpenSearch;

  beforeEach(async () => {
    server = await startRecordingOpenSearch(() => ({ body: { acknowledged: true } }));
  });

  afterEach(async () => {
    await server.close();
  });

  const slimClient = () =>
    createSearchClient({ node: server.url, requestTimeout: 2000, maxRetries: 0 });

  it('sends each call with the method, path, query string and body the full client sends', async () => {
    // Prepare
    const full = new Client({ node: server.url, maxRetries: 0 }) as unknown as SearchClient;
    const slim = slimClient();

    for (const [name, call] of CALLS) {
      // Act
      await call(full);
      await call(slim);

      // Assess
      const [viaFull, viaSlim] = server.requests.splice(0, 2);
      const seen = ({ method, path, query, body, headers }: NonNullable<typeof viaFull>) => ({
        name,
        method,
        path,
        query,
        body,
        contentType: headers['content-type'],
      });
      expect(viaSlim && seen(viaSlim)).toEqual(viaFull && seen(viaFull));
    }
  });

  it('sends the requests OpenSearch documents for the nine calls', async () => {
    // Prepare
    const client = slimClient();

    // Act
    for (const [, call] of CALLS) await call(client);

    // Assess
    expect(server.requests.map(({ method, path }) => `${method} ${path}`)).toEqual([
      'POST /svc-chunks-a,svc-chunks-b/_search',
      'POST /_msearch',
      'GET /svc-chunks-*/_count',
      'POST /_bulk',
      'POST /svc-chunks-*,-svc-chunks-a/_delete_by_query',
      'HEAD /svc-chunks-a',
      'PUT /svc-chunks-a',
      'GET /svc-chunks-a/_mapping',
      'POST /svc-chunks-a/_mapping',
    ]);
    expect(server.requests[0]?.query).toEqual({ routing: 'org-1', ignore_unavailable: 'true' });
    expect(JSON.parse(server.requests[0]?.body ?? '')).toEqual({
      size: 2,
      query: { match: { text: 'refund' } },
    });
    expect(server.requests[1]?.body).toBe(
      '{"index":"svc-chunks-a","routing":"org-1"}\n{"size":1,"query":{"match_all":{}}}\n',
    );
    expect(server.requests[1]?.headers['content-type']).toBe('application/x-ndjson');
    expect(server.requests[3]?.query).toEqual({ refresh: 'wait_for' });
    expect(server.requests[4]?.query).toEqual({
      routing: 'org-1',
      refresh: 'true',
      conflicts: 'proceed',
    });
  });

  it('answers { body, statusCode } and a HEAD that finds nothing as body false', async () => {
    // Prepare
    const client = slimClient();
    server.respondWith((request) =>
      request.method === 'HEAD' ? { status: 404 } : { body: { count: 3 } },
    );

    // Act
    const counted = await client.count({ index: 'svc-chunks-*' });
    const exists = await client.indices.exists({ index: 'svc-chunks-missing' });

    // Assess
    expect(counted.statusCode).toBe(200);
    expect(counted.body).toEqual({ count: 3 });
    expect(exists.statusCode).toBe(404);
    expect(exists.body).toBe(false);
  });

  it.each([
    [404, 'index_not_found_exception'],
    [409, 'version_conflict_engine_exception'],
    [429, 'es_rejected_execution_exception'],
  ])('rejects a %i answer with the package ResponseError', async (status, type) => {
    // Prepare
    const client = slimClient();
    server.respondWith(() => ({ status, body: { error: { type, reason: 'as told' }, status } }));

    // Act
    const failure = await client.search({ index: 'svc-chunks-a', body: {} }).catch((e) => e);

    // Assess
    expect(failure).toBeInstanceOf(errors.ResponseError);
    expect(failure.statusCode).toBe(status);
    expect(failure.body.error.type).toBe(type);
  });

  it('rejects a refused connection with the package ConnectionError', async () => {
    // Prepare
    const url = server.url;
    await server.close();
    const client = createSearchClient({ node: url, requestTimeout: 1000, maxRetries: 0 });

    // Act
    const failure = await client.count({ index: 'svc-chunks-*' }).catch((e) => e);

    // Assess
    expect(failure).toBeInstanceOf(errors.ConnectionError);
    server = await startRecordingOpenSearch();
  });

  it('sends the user and password of the URL as basic authentication, as the full client does', async () => {
    // Prepare
    const url = server.url.replace('http://', 'http://admin:s%40cret@');
    const client = createSearchClient({ node: url, requestTimeout: 2000, maxRetries: 0 });

    // Act
    await client.count({ index: 'svc-chunks-*' });

    // Assess
    expect(server.requests[0]?.headers.authorization).toBe(
      `Basic ${Buffer.from('admin:s@cret').toString('base64')}`,
    );
  });

  it('rejects a call missing a required parameter without sending it', async () => {
    // Prepare
    const client = slimClient();

    // Act
    const failure = await client.indices
      .putMapping({ index: 'svc-chunks-a' } as never)
      .catch((e) => e);

    // Assess
    expect(failure).toBeInstanceOf(errors.ConfigurationError);
    expect(server.requests).toEqual([]);
  });
});
