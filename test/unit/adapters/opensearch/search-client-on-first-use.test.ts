import { createOpenSearchClient } from '../../../../layers/core/adapters/opensearch/client';
import { searchClientOnFirstUse } from '../../../../layers/core/adapters/opensearch/search-client-on-first-use';
import {
  fixture,
  type RecordingOpenSearch,
  routes,
  startRecordingOpenSearch,
} from './recording-opensearch';

describe('Function: searchClientOnFirstUse', () => {
  let server: RecordingOpenSearch;

  beforeEach(async () => {
    server = await startRecordingOpenSearch(
      routes(
        ['GET', '/svc-chunks-*/_count', { body: fixture('count') }],
        ['HEAD', '/svc-chunks-a', { status: 404 }],
      ),
    );
  });

  afterEach(async () => {
    await server.close();
  });

  it('builds no client until the first call, then one client for every call', async () => {
    // Prepare
    let built = 0;
    const client = searchClientOnFirstUse(async () => {
      built += 1;
      return createOpenSearchClient({ url: server.url, timeoutMs: 1000 });
    });
    expect(built).toBe(0);

    // Act
    const [first, second] = await Promise.all([
      client.count({ index: 'svc-chunks-*' }),
      client.count({ index: 'svc-chunks-*' }),
    ]);
    const exists = await client.indices.exists({ index: 'svc-chunks-a' });

    // Assess
    expect(built).toBe(1);
    expect(first.body.count).toBe(7);
    expect(second.body.count).toBe(7);
    expect(exists.body).toBe(false);
    expect(server.requests).toHaveLength(3);
  });

  it('rejects the call whose client could not be built, and builds it again at the next call', async () => {
    // Prepare
    let attempts = 0;
    const client = searchClientOnFirstUse(async () => {
      attempts += 1;
      if (attempts === 1)
        throw new Error('OpenSearch needs either a URL or an endpoint and a region');
      return createOpenSearchClient({ url: server.url, timeoutMs: 1000 });
    });

    // Act
    const failed = client.count({ index: 'svc-chunks-*' });

    // Assess
    await expect(failed).rejects.toThrow(/endpoint and a region/);
    expect((await client.count({ index: 'svc-chunks-*' })).body.count).toBe(7);
    expect(attempts).toBe(2);
  });
});
