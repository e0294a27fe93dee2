import type { CdkCustomResourceEvent } from 'aws-lambda';
import { handler } from '../../../../functions/search-index-bootstrap/handler';
import { chunkIndexDefinition } from '../../../../layers/core/adapters/opensearch/index-definition';
import {
  fixture,
  jsonOf,
  type RecordingOpenSearch,
  routes,
  startRecordingOpenSearch,
} from '../../adapters/opensearch/recording-opensearch';

const EMBEDDERS = [
  { id: 'offline-hash-v1/384', dimensions: 384 },
  { id: 'openai/text-embedding-3-small/1536', dimensions: 1536 },
];

const COMMON = {
  ServiceToken: 'arn:aws:lambda:eu-west-1:123456789012:function:provider-framework-onEvent',
  ResponseURL: 'https://cloudformation-custom-resource-response.example/response',
  StackId: 'arn:aws:cloudformation:eu-west-1:123456789012:stack/AgentQueryService-test/guid',
  RequestId: 'request-1',
  LogicalResourceId: 'SearchIndexes',
  ResourceType: 'Custom::SearchIndexes',
  ResourceProperties: { ServiceToken: 'token' },
};

const create: CdkCustomResourceEvent = { ...COMMON, RequestType: 'Create' };
const update: CdkCustomResourceEvent = {
  ...COMMON,
  RequestType: 'Update',
  PhysicalResourceId: 'search-indexes:svc-chunks',
  OldResourceProperties: { ServiceToken: 'token' },
};
const remove: CdkCustomResourceEvent = {
  ...COMMON,
  RequestType: 'Delete',
  PhysicalResourceId: 'search-indexes:svc-chunks',
};

describe('Function: search-index-bootstrap handler', () => {
  let server: RecordingOpenSearch;
  const saved = { ...process.env };

  beforeEach(async () => {
    server = await startRecordingOpenSearch();
    process.env.OPENSEARCH_URL = server.url;
    process.env.SEARCH_EMBEDDERS = JSON.stringify(EMBEDDERS);
  });

  afterEach(async () => {
    process.env = { ...saved };
    await server.close();
  });

  it('creates the index of every configured embedder on Create', async () => {
    // Prepare
    server.respondWith(
      routes(
        ['HEAD', /^\/svc-chunks-/, { status: 404 }],
        ['PUT', /^\/svc-chunks-/, { body: fixture('create-index') }],
      ),
    );

    // Act
    const response = await handler(create);

    // Assess
    expect(response).toEqual({
      PhysicalResourceId: 'search-indexes:svc-chunks',
      Data: {
        IndexNames: 'svc-chunks-offline-hash-v1-384,svc-chunks-openai-text-embedding-3-small-1536',
      },
    });
    const creates = server.requests.filter((request) => request.method === 'PUT');
    expect(creates.map((request) => request.path)).toEqual([
      '/svc-chunks-offline-hash-v1-384',
      '/svc-chunks-openai-text-embedding-3-small-1536',
    ]);
    expect(jsonOf(creates[0])).toEqual(chunkIndexDefinition(EMBEDDERS[0]!) as unknown);
  });

  it('checks the indexes again on Update, keeping the physical id', async () => {
    // Prepare
    process.env.SEARCH_EMBEDDERS = JSON.stringify([{ id: 'fixture-embedder/3', dimensions: 3 }]);
    server.respondWith(
      routes(
        ['HEAD', '/svc-chunks-fixture-embedder-3', { status: 200 }],
        ['GET', '/svc-chunks-fixture-embedder-3/_mapping', { body: fixture('get-mapping') }],
      ),
    );

    // Act
    const response = await handler(update);

    // Assess
    expect(response.PhysicalResourceId).toBe(update.PhysicalResourceId);
    expect(server.requests.map((request) => request.method)).toEqual(['HEAD', 'GET']);
  });

  it('names the resource after a custom index prefix', async () => {
    // Prepare
    process.env.SEARCH_INDEX_PREFIX = 'aqs-live-chunks';
    server.respondWith(
      routes(
        ['HEAD', /^\/aqs-live-chunks-/, { status: 404 }],
        ['PUT', /^\/aqs-live-chunks-/, { body: fixture('create-index') }],
      ),
    );

    // Act
    const response = await handler(create);

    // Assess
    expect(response.PhysicalResourceId).toBe('search-indexes:aqs-live-chunks');
    expect(response.Data?.IndexNames).toBe(
      'aqs-live-chunks-offline-hash-v1-384,aqs-live-chunks-openai-text-embedding-3-small-1536',
    );
  });

  it('keeps the indexes and their data on Delete', async () => {
    // Act
    const response = await handler(remove);

    // Assess
    expect(response).toEqual({ PhysicalResourceId: 'search-indexes:svc-chunks' });
    expect(server.requests).toEqual([]);
  });

  it('fails the deployment step with the reason when an index conflicts', async () => {
    // Prepare
    process.env.SEARCH_EMBEDDERS = JSON.stringify([{ id: 'fixture-embedder/3', dimensions: 4 }]);
    server.respondWith(
      routes(
        ['HEAD', '/svc-chunks-fixture-embedder-3', { status: 200 }],
        ['GET', '/svc-chunks-fixture-embedder-3/_mapping', { body: fixture('get-mapping') }],
      ),
    );

    // Act
    const handling = handler(update);

    // Assess
    await expect(handling).rejects.toThrow(/expected knn_vector \(4 dimensions/);
  });
});
