import { createOpenSearchClient } from '../../../../layers/core/adapters/opensearch/client';
import {
  fixture,
  type RecordingOpenSearch,
  routes,
  startRecordingOpenSearch,
} from './recording-opensearch';

const CREDENTIALS = {
  AWS_ACCESS_KEY_ID: 'AKIAIOSFODNN7EXAMPLE',
  AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  AWS_SESSION_TOKEN: 'session-token-example',
};

describe('Function: createOpenSearchClient', () => {
  let server: RecordingOpenSearch;
  const saved = { ...process.env };

  beforeEach(async () => {
    server = await startRecordingOpenSearch(
      routes(['GET', '/svc-chunks-*/_count', { body: fixture('count') }]),
    );
  });

  afterEach(async () => {
    process.env = { ...saved };
    await server.close();
  });

  it('talks to OPENSEARCH_URL directly, unsigned', async () => {
    // Prepare
    const client = createOpenSearchClient({ url: server.url, timeoutMs: 1000 });

    // Act
    const response = await client.count({ index: 'svc-chunks-*' });

    // Assess
    expect(response.body.count).toBe(7);
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
    expect(server.requests[0]?.headers['x-amz-date']).toBeUndefined();
  });

  it('signs every request with SigV4 for the es service and the default credentials', async () => {
    // Prepare
    Object.assign(process.env, CREDENTIALS);
    const client = createOpenSearchClient({
      endpoint: server.url,
      region: 'eu-west-1',
      timeoutMs: 1000,
    });

    // Act
    await client.count({ index: 'svc-chunks-*' });

    // Assess
    const headers = server.requests[0]?.headers ?? {};
    expect(headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE\/\d{8}\/eu-west-1\/es\/aws4_request, SignedHeaders=.*host.*, Signature=[0-9a-f]{64}$/,
    );
    expect(headers['x-amz-security-token']).toBe('session-token-example');
    expect(headers['x-amz-content-sha256']).toMatch(/^[0-9a-f]{64}$/);
  });

  it('reaches a bare domain endpoint over HTTPS', () => {
    // Act
    const client = createOpenSearchClient({
      endpoint: 'search-svc-abc123.eu-west-1.es.amazonaws.com',
      region: 'eu-west-1',
      timeoutMs: 1000,
    });

    // Assess
    expect(client.connectionPool.connections.map((connection) => connection.url.href)).toEqual([
      'https://search-svc-abc123.eu-west-1.es.amazonaws.com/',
    ]);
  });

  it('refuses to build a client without a URL or an endpoint and region', () => {
    expect(() => createOpenSearchClient({ timeoutMs: 1000 })).toThrow(/OPENSEARCH_URL/);
    expect(() =>
      createOpenSearchClient({ endpoint: 'search-svc.es.amazonaws.com', timeoutMs: 1000 }),
    ).toThrow(/endpoint and a region/);
  });
});
