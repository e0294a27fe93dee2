/**
 * SciFact through the product's own indexing path: the chunker, the offline
 * embedder and the embedded index (in memory, one organization, one data
 * source), each document a `ParsedDocument` of one untitled section.
 */
import type { OfflineHashEmbedder } from '../../layers/core/adapters/ai/offline-embedder';
import { EmbeddedIndex } from '../../layers/core/adapters/local/embedded-index';
import { type Bm25Parameters, DEFAULT_BM25 } from '../../layers/core/domain/retrieval/bm25';
import {
  type ChunkingOptions,
  chunkDocument,
  DEFAULT_CHUNKING,
  documentHash,
  textToEmbed,
} from '../../layers/core/domain/retrieval/chunker';
import {
  RETRIEVAL_TUNING,
  type StrategySettings,
  strategySettingsFor,
} from '../../layers/core/domain/retrieval/fusion';
import type { ParsedDocument } from '../../layers/core/ports/document.port';
import type { IndexedChunk } from '../../layers/core/ports/retrieval-index.port';
import { lexicalSearches } from '../../layers/core/use-cases/retrieval/lexical-searches';
import type { ScifactDocument, ScifactQuery } from './scifact';
import type { Searches } from './strategies';

export const EVAL_ORG = 'org_eval';
export const EVAL_DATA_SOURCE = 'ds_scifact';

export function toParsedDocument(document: ScifactDocument): ParsedDocument {
  return {
    title: document.title,
    url: null,
    sections: [{ headingPath: [], paragraphs: [document.text] }],
  };
}

/** A chunk before embedding. */
export type PlainChunk = Omit<IndexedChunk, 'embedding' | 'embedder_id'>;

/** Where a collection's chunks are indexed: one organization, one data source. */
export interface CollectionPlace {
  readonly orgId: string;
  readonly dataSourceId: string;
}

/** Any collection's documents cut into chunks, as the sync worker would cut them. */
export function chunkDocuments(
  documents: readonly { readonly id: string; readonly parsed: ParsedDocument }[],
  place: CollectionPlace,
  chunking: ChunkingOptions = DEFAULT_CHUNKING,
): PlainChunk[] {
  const chunks: PlainChunk[] = [];
  for (const { id, parsed } of documents) {
    const hash = documentHash(parsed);
    for (const chunk of chunkDocument(parsed, chunking)) {
      chunks.push({
        chunk_id: `${id}#${chunk.position}`,
        org_id: place.orgId,
        data_source_id: place.dataSourceId,
        document_id: id,
        document_title: parsed.title,
        document_url: parsed.url,
        heading_path: chunk.headingPath,
        text: chunk.text,
        position: chunk.position,
        document_hash: hash,
      });
    }
  }
  return chunks;
}

/** The SciFact corpus cut into chunks. */
export function chunkCorpus(
  documents: readonly ScifactDocument[],
  chunking: ChunkingOptions = DEFAULT_CHUNKING,
): PlainChunk[] {
  return chunkDocuments(
    documents.map((document) => ({ id: document.id, parsed: toParsedDocument(document) })),
    { orgId: EVAL_ORG, dataSourceId: EVAL_DATA_SOURCE },
    chunking,
  );
}

export function embedChunks(
  chunks: readonly PlainChunk[],
  embedder: OfflineHashEmbedder,
): IndexedChunk[] {
  return chunks.map((chunk) => ({
    ...chunk,
    embedder_id: embedder.id,
    embedding: Array.from(
      embedder.embedOne(textToEmbed(chunk.document_title, chunk.heading_path, chunk.text)),
    ),
  }));
}

export async function buildIndex(
  chunks: readonly IndexedChunk[],
  bm25: Bm25Parameters = DEFAULT_BM25,
): Promise<EmbeddedIndex> {
  const index = new EmbeddedIndex({ bm25 });
  await index.upsert(chunks);
  return index;
}

/**
 * Every query's searches, `RETRIEVAL_TUNING.candidates` deep, as the query
 * path runs them (`lexicalSearches`: BM25, then the feedback search with
 * `settings`' feedback).
 */
export async function searchAll(
  index: EmbeddedIndex,
  embedder: OfflineHashEmbedder,
  queries: readonly ScifactQuery[],
  settings: StrategySettings = strategySettingsFor(embedder.id),
): Promise<Map<string, Searches>> {
  const filter = { orgId: EVAL_ORG };
  const depth = RETRIEVAL_TUNING.candidates;
  const searches = new Map<string, Searches>();
  for (const query of queries) {
    const [queryVector = []] = await embedder.embed([query.text]);
    const knn = await index.knn(filter, queryVector, embedder.id, depth);
    const lexical = await lexicalSearches(index, filter, query.text, depth, knn, settings);
    searches.set(query.id, { query: query.text, queryVector, knn, ...lexical });
  }
  return searches;
}
