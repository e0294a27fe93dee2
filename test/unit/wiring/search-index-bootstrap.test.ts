import { searchIndexBootstrap } from '../../../layers/core/wiring/search-index-bootstrap';

const EMBEDDERS = JSON.stringify([{ id: 'offline-hash-v1/384', dimensions: 384 }]);

describe('Function: searchIndexBootstrap', () => {
  it('builds from the domain endpoint and region without contacting anything', () => {
    // Act
    const bootstrap = searchIndexBootstrap({
      OPENSEARCH_ENDPOINT: 'search-svc-abc123.eu-west-1.es.amazonaws.com',
      AWS_REGION: 'eu-west-1',
      SEARCH_EMBEDDERS: EMBEDDERS,
    });

    // Assess
    expect(bootstrap.indexPrefix).toBe('svc-chunks');
  });

  it('names what is missing: a place to reach and the embedders', () => {
    expect(() => searchIndexBootstrap({})).toThrow(
      /Invalid search index bootstrap configuration: .*SEARCH_EMBEDDERS/,
    );
    expect(() => searchIndexBootstrap({ SEARCH_EMBEDDERS: EMBEDDERS })).toThrow(
      /OPENSEARCH_ENDPOINT: set OPENSEARCH_URL, or OPENSEARCH_ENDPOINT and AWS_REGION/,
    );
  });

  it('refuses embedders that are not a JSON list of ids and dimensions', () => {
    const reach = { OPENSEARCH_URL: 'http://127.0.0.1:9200' };
    expect(() =>
      searchIndexBootstrap({ ...reach, SEARCH_EMBEDDERS: 'offline-hash-v1/384' }),
    ).toThrow(/SEARCH_EMBEDDERS: must be JSON/);
    expect(() => searchIndexBootstrap({ ...reach, SEARCH_EMBEDDERS: '[]' })).toThrow(
      /SEARCH_EMBEDDERS/,
    );
    expect(() =>
      searchIndexBootstrap({
        ...reach,
        SEARCH_EMBEDDERS: JSON.stringify([{ id: 'e', dimensions: 20_000 }]),
      }),
    ).toThrow(/SEARCH_EMBEDDERS\.0\.dimensions/);
  });

  it('refuses an index prefix OpenSearch would refuse', () => {
    expect(() =>
      searchIndexBootstrap({
        OPENSEARCH_URL: 'http://127.0.0.1:9200',
        SEARCH_EMBEDDERS: EMBEDDERS,
        SEARCH_INDEX_PREFIX: 'Chunks_',
      }),
    ).toThrow(/SEARCH_INDEX_PREFIX/);
  });
});
