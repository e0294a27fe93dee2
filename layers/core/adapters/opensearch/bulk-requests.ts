/**
 * How chunks are written to OpenSearch: grouped by the embedder that made
 * them (one index each) and sent in bulk bodies of a bounded size.
 */
import type { IndexedChunk } from '../../ports/retrieval-index.port';
import type { EmbedderShape } from './index-definition';

/**
 * Bytes of NDJSON per bulk request. Amazon OpenSearch Service refuses HTTP
 * bodies over 10 MiB on small instances, and OpenSearch suggests 5–15 MB per
 * bulk request; a chunk with a 1536-dimension vector is about 30 KB.
 */
export const MAX_BULK_BYTES = 5 * 1024 * 1024;

export function groupByEmbedder(
  chunks: readonly IndexedChunk[],
): Map<EmbedderShape, IndexedChunk[]> {
  const groups = new Map<string, { embedder: EmbedderShape; chunks: IndexedChunk[] }>();
  for (const chunk of chunks) {
    const group = groups.get(chunk.embedder_id);
    if (!group) {
      groups.set(chunk.embedder_id, {
        embedder: { id: chunk.embedder_id, dimensions: chunk.embedding.length },
        chunks: [chunk],
      });
      continue;
    }
    if (chunk.embedding.length !== group.embedder.dimensions) {
      throw new Error(
        `Chunk ${chunk.chunk_id} has ${chunk.embedding.length} dimensions; other chunks of ${chunk.embedder_id} have ${group.embedder.dimensions}`,
      );
    }
    group.chunks.push(chunk);
  }
  return new Map([...groups.values()].map((group) => [group.embedder, group.chunks]));
}

/** Bulk bodies (action line, source line, …) of at most MAX_BULK_BYTES each. */
export function bulkBatches(indexName: string, chunks: readonly IndexedChunk[]): object[][] {
  const batches: object[][] = [];
  let batch: object[] = [];
  let bytes = 0;
  for (const chunk of chunks) {
    const action = { index: { _index: indexName, _id: chunk.chunk_id, routing: chunk.org_id } };
    const source = sourceOf(chunk);
    const size = Buffer.byteLength(`${JSON.stringify(action)}\n${JSON.stringify(source)}\n`);
    if (batch.length > 0 && bytes + size > MAX_BULK_BYTES) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(action, source);
    bytes += size;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

/** The stored document: the chunk's own fields, nothing else (the mapping is strict). */
function sourceOf(chunk: IndexedChunk): Record<string, unknown> {
  return {
    chunk_id: chunk.chunk_id,
    org_id: chunk.org_id,
    data_source_id: chunk.data_source_id,
    document_id: chunk.document_id,
    document_title: chunk.document_title,
    document_url: chunk.document_url,
    heading_path: [...chunk.heading_path],
    text: chunk.text,
    position: chunk.position,
    document_hash: chunk.document_hash,
    embedder_id: chunk.embedder_id,
    embedding: [...chunk.embedding],
  };
}
