import {
  chunkIndexDefinition,
  chunkIndexName,
  chunkIndexPattern,
  cosineFromScore,
  otherChunkIndexes,
} from '../../../../layers/core/adapters/opensearch/index-definition';
import { DEFAULT_BM25 } from '../../../../layers/core/domain/retrieval/bm25';

describe('Function: chunkIndexName', () => {
  it('names the index after a slug of the embedder id', () => {
    expect(chunkIndexName('svc-chunks', 'offline-hash-v1/384')).toBe(
      'svc-chunks-offline-hash-v1-384',
    );
    expect(chunkIndexName('svc-chunks', 'openai/text-embedding-3-small/1536')).toBe(
      'svc-chunks-openai-text-embedding-3-small-1536',
    );
  });

  it('lower-cases and collapses characters an index name cannot hold', () => {
    expect(chunkIndexName('svc-chunks', '  Custom:Model@V2//768 ')).toBe(
      'svc-chunks-custom-model-v2-768',
    );
  });

  it('refuses a prefix OpenSearch would refuse', () => {
    expect(() => chunkIndexName('Svc_Chunks', 'offline-hash-v1/384')).toThrow(/index prefix/);
    expect(() => chunkIndexName('-svc', 'offline-hash-v1/384')).toThrow(/index prefix/);
  });

  it('refuses an embedder id without letters or digits', () => {
    expect(() => chunkIndexName('svc-chunks', '//')).toThrow(/no letters or digits/);
  });

  it('refuses a name longer than 255 bytes', () => {
    expect(() => chunkIndexName('svc-chunks', 'x'.repeat(250))).toThrow(/255 bytes/);
  });
});

describe('Function: chunkIndexPattern', () => {
  it('matches every embedder index of the prefix, or all but one', () => {
    expect(chunkIndexPattern('svc-chunks')).toBe('svc-chunks-*');
    expect(otherChunkIndexes('svc-chunks', 'svc-chunks-a')).toBe('svc-chunks-*,-svc-chunks-a');
  });
});

describe('Function: chunkIndexDefinition', () => {
  const definition = chunkIndexDefinition({ id: 'offline-hash-v1/384', dimensions: 384 });

  it('turns k-NN on, with one shard and a replica only where a second node exists', () => {
    expect(definition.settings.index).toMatchObject({
      knn: true,
      number_of_shards: 1,
      auto_expand_replicas: '0-1',
    });
  });

  it("scores text with the embedded index's BM25 parameters", () => {
    expect(definition.settings.index['similarity.chunk_bm25']).toEqual({
      type: 'BM25',
      k1: DEFAULT_BM25.k1,
      b: DEFAULT_BM25.b,
    });
    expect(DEFAULT_BM25).toEqual({ k1: 0.9, b: 0.4 });
  });

  it('maps the embedding as an HNSW cosine vector of the embedder dimension on Lucene', () => {
    expect(definition.mappings.properties.embedding).toEqual({
      type: 'knn_vector',
      dimension: 384,
      method: {
        name: 'hnsw',
        engine: 'lucene',
        space_type: 'cosinesimil',
        parameters: { m: 16, ef_construction: 100 },
      },
    });
  });

  it('analyses text and title for BM25 in English, and keeps ids as keywords', () => {
    const { properties } = definition.mappings;
    const english = { type: 'text', analyzer: 'english', similarity: 'chunk_bm25' };
    expect(properties.text).toEqual({ ...english, copy_to: ['title_and_text'] });
    expect(properties.document_title).toEqual({ ...english, copy_to: ['title_and_text'] });
    expect(properties.title_and_text).toEqual(english);
    for (const field of [
      'chunk_id',
      'org_id',
      'data_source_id',
      'document_id',
      'document_hash',
      'embedder_id',
    ] as const) {
      expect(properties[field]).toEqual({ type: 'keyword' });
    }
    expect(properties.heading_path).toEqual({ type: 'keyword', fields: { text: english } });
    expect(properties.position).toEqual({ type: 'integer' });
    expect(properties.document_url).toEqual({ type: 'keyword', index: false, doc_values: false });
  });

  it('has the fields of an indexed chunk, and the one BM25 searches', () => {
    expect(Object.keys(definition.mappings.properties).sort()).toEqual(
      [
        'title_and_text',
        'chunk_id',
        'data_source_id',
        'document_hash',
        'document_id',
        'document_title',
        'document_url',
        'embedder_id',
        'embedding',
        'heading_path',
        'org_id',
        'position',
        'text',
      ].sort(),
    );
  });

  it('requires routing, refuses unknown fields and records the embedder', () => {
    expect(definition.mappings.dynamic).toBe('strict');
    expect(definition.mappings._routing).toEqual({ required: true });
    expect(definition.mappings._meta).toEqual({
      embedder_id: 'offline-hash-v1/384',
      dimensions: 384,
      definition_version: 1,
    });
  });

  it('refuses a dimension a knn_vector field cannot have', () => {
    expect(() => chunkIndexDefinition({ id: 'e/0', dimensions: 0 })).toThrow(/1 to 16000/);
    expect(() => chunkIndexDefinition({ id: 'e/big', dimensions: 16_001 })).toThrow(/1 to 16000/);
    expect(() => chunkIndexDefinition({ id: 'e/half', dimensions: 1.5 })).toThrow(/1 to 16000/);
  });
});

describe('Function: cosineFromScore', () => {
  it('inverts the cosinesimil score (1 + cos) / 2', () => {
    expect(cosineFromScore(1)).toBe(1);
    expect(cosineFromScore(0.5)).toBe(0);
    expect(cosineFromScore(0)).toBe(-1);
    expect(cosineFromScore(0.95)).toBeCloseTo(0.9, 12);
    expect(cosineFromScore(0.4)).toBeCloseTo(-0.2, 12);
  });

  it('round-trips every cosine through the score OpenSearch would give', () => {
    for (let cos = -1; cos <= 1; cos += 0.125) {
      expect(cosineFromScore((1 + cos) / 2)).toBeCloseTo(cos, 12);
    }
  });

  it('clamps the rounding of 32-bit scores into [-1, 1]', () => {
    expect(cosineFromScore(1.0000001)).toBe(1);
    expect(cosineFromScore(-0.0000001)).toBe(-1);
  });
});
