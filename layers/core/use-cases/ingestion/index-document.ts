import { createHash } from 'node:crypto';
import { textToEmbed } from '../../domain/retrieval/chunker';
import type { ParsedDocument } from '../../ports/document.port';
import type { DocumentChunker } from '../../ports/document-chunker.port';
import type { Embedder } from '../../ports/embedder.port';
import type { IndexedChunk, RetrievalIndex } from '../../ports/retrieval-index.port';

/** Texts embedded per call: large enough to amortise a provider round trip, small enough for its limits. */
const EMBED_BATCH = 64;

/** Chunks written to the index per call. */
const UPSERT_BATCH = 512;

/**
 * Lets the event loop serve what is waiting between two batches. The
 * offline embedder and the embedded index compute synchronously, so on one
 * machine a 20,000-chunk document otherwise held the API for 45 s (a
 * request timed out meanwhile); in a Lambda it costs nothing.
 */
const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Chunks, embeds and replaces one document's chunks; returns how many chunks
 * and tokens were embedded. Throws `DocumentRefusedError` when the chunker
 * refuses the document (its limits): nothing is written then.
 * `options.new`: the caller read the index's documents and this one has no
 * chunks there, so there is nothing to replace.
 */
export async function indexDocument(
  deps: {
    readonly retrieval: RetrievalIndex;
    readonly embedder: Embedder;
    readonly chunker: DocumentChunker;
  },
  orgId: string,
  dataSourceId: string,
  documentId: string,
  document: ParsedDocument,
  contentHash: string,
  options: { readonly new?: boolean } = {},
): Promise<{ chunks: number; tokens: number }> {
  const chunks = await deps.chunker.chunk(document);
  const vectors: number[][] = [];
  for (let start = 0; start < chunks.length; start += EMBED_BATCH) {
    vectors.push(
      ...(await deps.embedder.embed(
        // As the eval measures it: the title and headings give a chunk its context.
        chunks
          .slice(start, start + EMBED_BATCH)
          .map((chunk) => textToEmbed(document.title, chunk.headingPath, chunk.text)),
      )),
    );
    await yieldToEventLoop();
  }
  const indexedChunks: IndexedChunk[] = chunks.map((chunk, index) => ({
    chunk_id: `chk_${documentId.slice(4, 14)}${createHash('sha256').update(`${documentId}#${chunk.position}`).digest('hex').slice(0, 16)}`,
    org_id: orgId,
    data_source_id: dataSourceId,
    document_id: documentId,
    document_title: document.title,
    document_url: document.url,
    heading_path: chunk.headingPath,
    text: chunk.text,
    position: chunk.position,
    document_hash: contentHash,
    embedder_id: deps.embedder.id,
    embedding: vectors[index] ?? [],
  }));
  // Replace, not merge: a document that shrank must not keep its old tail. A new document
  // has no tail, and its delete would cost an index write (a flushed log line) for nothing.
  if (options.new !== true) await deps.retrieval.deleteDocument(orgId, dataSourceId, documentId);
  await writeInBatches(deps.retrieval, indexedChunks, contentHash);
  return {
    chunks: chunks.length,
    tokens: chunks.reduce((sum, chunk) => sum + chunk.tokenCount, 0),
  };
}

/**
 * Writes a document's chunks, one index write per UPSERT_BATCH. A document of
 * several batches is written first with a hash no content has (all but its
 * last batch), then those batches again with the real hash: a crash between
 * two writes leaves chunks whose hashes disagree, which `documentHashes`
 * reports as changed, so the resumed sync writes the document again instead
 * of skipping it with its tail missing. One batch is one write, whole or absent.
 */
async function writeInBatches(
  retrieval: RetrievalIndex,
  chunks: readonly IndexedChunk[],
  contentHash: string,
): Promise<void> {
  const batches: IndexedChunk[][] = [];
  for (let start = 0; start < chunks.length; start += UPSERT_BATCH) {
    batches.push(chunks.slice(start, start + UPSERT_BATCH));
  }
  const provisional = `${contentHash}:partial`;
  const leading = batches.slice(0, -1);
  for (const batch of leading) {
    await retrieval.upsert(batch.map((chunk) => ({ ...chunk, document_hash: provisional })));
    await yieldToEventLoop();
  }
  for (const batch of [...batches.slice(-1), ...leading]) {
    await retrieval.upsert(batch);
    await yieldToEventLoop();
  }
}
