import {
  ensureIndex,
  ensureIndexes,
} from '../../../../layers/core/adapters/opensearch/ensure-index';
import {
  IndexDefinitionConflictError,
  SearchUnavailableError,
} from '../../../../layers/core/adapters/opensearch/errors';
import { chunkIndexDefinition } from '../../../../layers/core/adapters/opensearch/index-definition';
import { expectDocumentedRequests } from './documented-request-shapes';
import {
  clientFor,
  fixture,
  jsonOf,
  type RecordingOpenSearch,
  routes,
  startRecordingOpenSearch,
} from './recording-opensearch';

const EMBEDDER = { id: 'fixture-embedder/3', dimensions: 3 };
const INDEX = 'svc-chunks-fixture-embedder-3';
const options = { prefix: 'svc-chunks', embedder: EMBEDDER };

/** The fixture mapping, changed by `change`. */
const mappingWith = (change: (mappings: any) => void) => {
  const body = fixture('get-mapping') as any;
  change(body[INDEX].mappings);
  return body;
};

describe('Function: ensureIndex', () => {
  let server: RecordingOpenSearch;

  beforeEach(async () => {
    server = await startRecordingOpenSearch();
  });

  afterEach(async () => {
    // Every request it sent has the shape OpenSearch's documentation gives it.
    const requests = [...server.requests];
    await server.close();
    expectDocumentedRequests(requests);
  });

  it('creates a missing index with the definition as its body', async () => {
    // Prepare
    server.respondWith(
      routes(
        ['HEAD', `/${INDEX}`, { status: 404 }],
        ['PUT', `/${INDEX}`, { body: fixture('create-index') }],
      ),
    );

    // Act
    const ensured = await ensureIndex(clientFor(server), options);

    // Assess
    expect(ensured).toEqual({ indexName: INDEX, embedderId: EMBEDDER.id, outcome: 'created' });
    expect(server.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      `HEAD /${INDEX}`,
      `PUT /${INDEX}`,
    ]);
    expect(jsonOf(server.requests[1])).toEqual(chunkIndexDefinition(EMBEDDER) as unknown);
  });

  it('leaves an index that matches the definition as it is', async () => {
    // Prepare
    server.respondWith(
      routes(
        ['HEAD', `/${INDEX}`, { status: 200 }],
        ['GET', `/${INDEX}/_mapping`, { body: fixture('get-mapping') }],
      ),
    );

    // Act
    const ensured = await ensureIndex(clientFor(server), options);

    // Assess
    expect(ensured.outcome).toBe('unchanged');
    expect(server.requests.map((request) => request.method)).toEqual(['HEAD', 'GET']);
  });

  it('adds the fields an older definition lacked', async () => {
    // Prepare
    const older = mappingWith((mappings) => {
      delete mappings.properties.heading_path;
      mappings._meta.definition_version = 0;
    });
    server.respondWith(
      routes(
        ['HEAD', `/${INDEX}`, { status: 200 }],
        ['GET', `/${INDEX}/_mapping`, { body: older }],
        ['POST', `/${INDEX}/_mapping`, { body: fixture('acknowledged') }],
      ),
    );

    // Act
    const ensured = await ensureIndex(clientFor(server), options);

    // Assess
    expect(ensured.outcome).toBe('updated');
    const definition = chunkIndexDefinition(EMBEDDER);
    expect(jsonOf(server.requests[2])).toEqual({
      _meta: definition.mappings._meta,
      properties: definition.mappings.properties,
    } as unknown);
  });

  it('checks the index another process created between the check and the create', async () => {
    // Prepare
    server.respondWith(
      routes(
        ['HEAD', `/${INDEX}`, { status: 404 }],
        ['PUT', `/${INDEX}`, { status: 400, body: fixture('error-resource-already-exists') }],
        ['GET', `/${INDEX}/_mapping`, { body: fixture('get-mapping') }],
      ),
    );

    // Act
    const ensured = await ensureIndex(clientFor(server), options);

    // Assess
    expect(ensured.outcome).toBe('unchanged');
  });

  it("refuses an index that holds another embedder's chunks", async () => {
    // Prepare
    const foreign = mappingWith((mappings) => {
      mappings._meta.embedder_id = 'fixture-embedder:3';
    });
    server.respondWith(
      routes(
        ['HEAD', `/${INDEX}`, { status: 200 }],
        ['GET', `/${INDEX}/_mapping`, { body: foreign }],
      ),
    );

    // Act
    const ensuring = ensureIndex(clientFor(server), options);

    // Assess
    await expect(ensuring).rejects.toThrow(IndexDefinitionConflictError);
    await expect(ensuring).rejects.toThrow(
      /embedder "fixture-embedder:3", not "fixture-embedder\/3"/,
    );
  });

  it('refuses an index whose vectors have another dimension or engine', async () => {
    // Prepare
    const faiss = mappingWith((mappings) => {
      mappings.properties.embedding.method.engine = 'faiss';
    });
    server.respondWith(
      routes(
        ['HEAD', `/${INDEX}`, { status: 200 }],
        ['GET', `/${INDEX}/_mapping`, { body: faiss }],
      ),
    );

    // Act
    const ensuring = ensureIndex(clientFor(server), options);

    // Assess
    await expect(ensuring).rejects.toThrow(/3 dimensions, faiss\/cosinesimil.*expected knn_vector/);
  });
});

describe('Function: ensureIndexes', () => {
  let server: RecordingOpenSearch;

  beforeEach(async () => {
    server = await startRecordingOpenSearch();
  });

  afterEach(async () => {
    // Every request it sent has the shape OpenSearch's documentation gives it.
    const requests = [...server.requests];
    await server.close();
    expectDocumentedRequests(requests);
  });

  const noWait = async () => {};

  it('ensures each embedder index in turn', async () => {
    // Prepare
    server.respondWith(
      routes(
        ['HEAD', /^\/svc-chunks-/, { status: 404 }],
        ['PUT', /^\/svc-chunks-/, { body: fixture('create-index') }],
      ),
    );

    // Act
    const ensured = await ensureIndexes(clientFor(server), {
      prefix: 'svc-chunks',
      embedders: [EMBEDDER, { id: 'openai/text-embedding-3-small/1536', dimensions: 1536 }],
      backoff: noWait,
    });

    // Assess
    expect(ensured.map((index) => index.indexName)).toEqual([
      INDEX,
      'svc-chunks-openai-text-embedding-3-small-1536',
    ]);
    expect(jsonOf(server.requests[3]).mappings.properties.embedding.dimension).toBe(1536);
  });

  it('retries while OpenSearch is unavailable, then succeeds', async () => {
    // Prepare
    let failures = 2;
    server.respondWith(
      routes(
        ['HEAD', `/${INDEX}`, () => (failures-- > 0 ? { status: 503 } : { status: 404 })],
        ['PUT', `/${INDEX}`, { body: fixture('create-index') }],
      ),
    );
    const waits: number[] = [];

    // Act
    const ensured = await ensureIndexes(clientFor(server), {
      prefix: 'svc-chunks',
      embedders: [EMBEDDER],
      backoff: async (retry) => {
        waits.push(retry);
      },
    });

    // Assess
    expect(ensured[0]?.outcome).toBe('created');
    expect(waits).toEqual([1, 2]);
  });

  it('gives up after the last attempt', async () => {
    // Prepare
    server.respondWith(() => ({ status: 503, body: fixture('error-search-phase-unavailable') }));

    // Act
    const ensuring = ensureIndexes(clientFor(server), {
      prefix: 'svc-chunks',
      embedders: [EMBEDDER],
      attempts: 3,
      backoff: noWait,
    });

    // Assess
    await expect(ensuring).rejects.toThrow(SearchUnavailableError);
    expect(server.requests).toHaveLength(3);
  });

  it('does not retry a conflicting index', async () => {
    // Prepare
    const foreign = mappingWith((mappings) => {
      mappings.properties.embedding.dimension = 4;
    });
    server.respondWith(
      routes(
        ['HEAD', `/${INDEX}`, { status: 200 }],
        ['GET', `/${INDEX}/_mapping`, { body: foreign }],
      ),
    );

    // Act
    const ensuring = ensureIndexes(clientFor(server), {
      prefix: 'svc-chunks',
      embedders: [EMBEDDER],
      backoff: noWait,
    });

    // Assess
    await expect(ensuring).rejects.toThrow(IndexDefinitionConflictError);
    expect(server.requests).toHaveLength(2);
  });
});
