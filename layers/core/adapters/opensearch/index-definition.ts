/**
 * The OpenSearch index that holds chunks, as data: its name, settings and
 * mappings (ARCHITECTURE: k-NN with HNSW and cosine, plus BM25 on the same
 * documents). `ensureIndex` creates it; the adapter reads and writes it.
 *
 * **One index per embedder.** A `knn_vector` field has one fixed dimension,
 * and vectors of two embedders must never be compared anyway, so each
 * embedder gets its own index, named from a prefix and a slug of its id:
 * `offline-hash-v1/384` → `svc-chunks-offline-hash-v1-384`. Switching
 * embedders therefore starts an empty index beside the old one instead of
 * mixing vectors; the old index's chunks are what `knn` reports as an
 * `EmbedderMismatchError` until a re-sync replaces them. The embedder id
 * itself is kept in the mapping's `_meta`, so two ids that slug alike cannot
 * share an index unnoticed (`ensureIndex` refuses).
 */

import { DEFAULT_BM25 } from '../../domain/retrieval/bm25';

/** Default prefix of every chunk index name. */
export const DEFAULT_INDEX_PREFIX = 'svc-chunks';

/**
 * The k-NN engine. Lucene rather than Faiss: it does efficient filtering
 * (the organization filter is applied inside the HNSW search, falling back to
 * an exact search when the filter leaves few chunks, which is the common case
 * for one tenant among many) on every OpenSearch from 2.4, so also on an older
 * local cluster behind `OPENSEARCH_URL`, while Faiss only supports
 * `cosinesimil` from 2.19. Its cosine score has always been `(1 + cos) / 2`,
 * which `cosineFromScore` inverts exactly; Faiss and NMSLIB scored
 * `1 / (2 - cos)` before 2.19. Lucene is also the engine OpenSearch suggests
 * for smaller deployments, which a t3.small test domain is.
 */
export const KNN_ENGINE = 'lucene';
export const KNN_SPACE_TYPE = 'cosinesimil';

/** OpenSearch's bounds for a `knn_vector` dimension. */
export const MAX_DIMENSIONS = 16_000;

/** Bumped when the mappings below change, so a bootstrap can tell an index built from older ones. */
export const DEFINITION_VERSION = 1;

export interface EmbedderShape {
  /** The `Embedder.id`, e.g. `offline-hash-v1/384`. */
  readonly id: string;
  readonly dimensions: number;
}

const INDEX_PREFIX = /^[a-z0-9][a-z0-9-]{0,99}$/;
/** OpenSearch index names are at most 255 bytes. */
const MAX_INDEX_NAME_BYTES = 255;

/**
 * The index holding one embedder's chunks.
 *
 * @example
 * chunkIndexName('svc-chunks', 'offline-hash-v1/384'); // 'svc-chunks-offline-hash-v1-384'
 */
export function chunkIndexName(prefix: string, embedderId: string): string {
  if (!INDEX_PREFIX.test(prefix)) {
    throw new Error(
      `The index prefix must be lower-case letters, digits and "-", starting with a letter or digit, got "${prefix}"`,
    );
  }
  const slug = embedderId
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  if (slug === '') throw new Error(`The embedder id "${embedderId}" has no letters or digits`);
  const name = `${prefix}-${slug}`;
  if (Buffer.byteLength(name) > MAX_INDEX_NAME_BYTES) {
    throw new Error(`The index name for embedder "${embedderId}" is longer than 255 bytes`);
  }
  return name;
}

/** Every chunk index of a prefix, whichever embedder (for BM25, counts and deletes). */
export function chunkIndexPattern(prefix: string): string {
  return `${prefix}-*`;
}

/** Every chunk index of a prefix except one: OpenSearch's `-name` excludes from a wildcard. */
export function otherChunkIndexes(prefix: string, indexName: string): string {
  return `${chunkIndexPattern(prefix)},-${indexName}`;
}

/**
 * The BM25 similarity of every text field: the embedded index's parameters
 * (DEFAULT_BM25, Anserini's k1 0.9 and b 0.4) rather than Lucene's 1.2/0.75,
 * so both adapters rank alike.
 */
const SIMILARITY = 'chunk_bm25';

/**
 * Text fields are analysed like the embedded index's BM25 (OpenSearch's
 * `english` analyzer: standard tokenizer, possessives, lower case, Lucene's
 * English stop words, Porter stems; see domain/retrieval/text-analysis.ts).
 */
const ENGLISH_TEXT = { type: 'text', analyzer: 'english', similarity: SIMILARITY } as const;

/**
 * The field `bm25` searches: title and text copied into one field, which is
 * BM25 over `document_title + "\n" + text`, what the embedded index scores
 * (one field's statistics, not two fields' scores added).
 */
export const BM25_FIELD = 'title_and_text';

/**
 * The field of a chunk's headings `bm25` also matches, boosted by
 * `HEADING_BOOST`: the `text` subfield of `heading_path` (English analysis,
 * the same similarity), scored on its own statistics as the embedded index's
 * headings field is.
 */
export const HEADINGS_FIELD = 'heading_path.text';

/** A list, as OpenSearch reports `copy_to` back, so a read mapping compares equal. */
function bm25CopyTarget(): string[] {
  return [BM25_FIELD];
}

/**
 * The fields of a chunk document: `IndexedChunk` as is, one field per
 * property, so `_source` maps back to a chunk without renaming.
 */
function chunkProperties(dimensions: number) {
  return {
    chunk_id: { type: 'keyword' },
    org_id: { type: 'keyword' },
    data_source_id: { type: 'keyword' },
    document_id: { type: 'keyword' },
    document_hash: { type: 'keyword' },
    embedder_id: { type: 'keyword' },
    document_title: { ...ENGLISH_TEXT, copy_to: bm25CopyTarget() },
    // Kept for the citation only: never searched or aggregated on.
    document_url: { type: 'keyword', index: false, doc_values: false },
    // Exact paths for filtering, plus the words `bm25` matches with a boost (HEADINGS_FIELD).
    heading_path: { type: 'keyword', fields: { text: ENGLISH_TEXT } },
    text: { ...ENGLISH_TEXT, copy_to: bm25CopyTarget() },
    // Indexed only (copy_to never reaches _source): what `bm25` matches.
    [BM25_FIELD]: ENGLISH_TEXT,
    position: { type: 'integer' },
    embedding: {
      type: 'knn_vector',
      dimension: dimensions,
      method: {
        name: 'hnsw',
        engine: KNN_ENGINE,
        space_type: KNN_SPACE_TYPE,
        // OpenSearch's defaults, written out so the index says what it is.
        parameters: { m: 16, ef_construction: 100 },
      },
    },
  } as const;
}

/**
 * Settings and mappings of the index for one embedder.
 *
 * - `index.knn: true` builds HNSW graphs for the vector field; the
 *   `chunk_bm25` similarity scores the text fields with the embedded index's
 *   BM25 parameters.
 * - One primary shard: an index per embedder stays far below the tens of GB
 *   a shard holds well, and one shard scores BM25 with one set of statistics.
 *   `auto_expand_replicas: 0-1` gives a replica when a second data node
 *   exists (the `live` domain) and none on a one-node `test` domain, which
 *   would otherwise stay yellow with an unassigned replica.
 * - `_routing` is required: every chunk is routed by its organization (see
 *   the adapter), and a write without routing is refused rather than placed
 *   on the wrong shard.
 * - `dynamic: strict`: a document with an unknown field is refused instead of
 *   silently widening the mapping.
 */
export function chunkIndexDefinition(embedder: EmbedderShape) {
  const { dimensions } = embedder;
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > MAX_DIMENSIONS) {
    throw new Error(
      `Embedder "${embedder.id}" has ${dimensions} dimensions; a knn_vector field takes 1 to ${MAX_DIMENSIONS}`,
    );
  }
  return {
    settings: {
      index: {
        knn: true,
        number_of_shards: 1,
        auto_expand_replicas: '0-1',
        // A dotted key, read like the nested form (as `knn.algo_param.ef_search` in OpenSearch's own examples).
        [`similarity.${SIMILARITY}`]: { type: 'BM25', k1: DEFAULT_BM25.k1, b: DEFAULT_BM25.b },
      },
    },
    mappings: {
      dynamic: 'strict',
      _meta: {
        embedder_id: embedder.id,
        dimensions,
        definition_version: DEFINITION_VERSION,
      },
      _routing: { required: true },
      properties: chunkProperties(dimensions),
    },
  } as const;
}

export type ChunkIndexDefinition = ReturnType<typeof chunkIndexDefinition>;

/**
 * The cosine similarity behind a k-NN hit's `_score`. For `cosinesimil`
 * OpenSearch turns the distance `d = 1 - cos` into `score = (2 - d) / 2`, that
 * is `(1 + cos) / 2` (the Lucene engine always has; Faiss too from 2.19), so
 * `cos = 2 · score - 1`. Scores are 32-bit floats, hence the clamp.
 *
 * @example
 * cosineFromScore(0.9); // 0.8
 */
export function cosineFromScore(score: number): number {
  return Math.min(1, Math.max(-1, 2 * score - 1));
}
