import { OfflineHashEmbedder } from '../../../layers/core/adapters/ai/offline-embedder';
import { EmbeddedIndex } from '../../../layers/core/adapters/local/embedded-index';
import { inProcessChunker } from '../../../layers/core/adapters/parsing/in-process-chunker';
import type { ParsedDocument } from '../../../layers/core/ports/document.port';
import { indexDocument } from '../../../layers/core/use-cases/ingestion/index-document';

/** A document of many chunks: one section of many distinct paragraphs. */
function largeDocument(paragraphs: number): ParsedDocument {
  return {
    title: 'Large',
    url: null,
    sections: [
      {
        headingPath: ['Part'],
        paragraphs: Array.from({ length: paragraphs }, (_, i) =>
          `Paragraph ${i} tells about item ${i} and its ${i % 7} parts. `.repeat(40),
        ),
      },
    ],
  };
}

/**
 * Issue 14 item 2 (found by the parsing-memory bench): embedding and
 * indexing compute synchronously on one machine, so between batches the
 * event loop must get its turn, or a large document holds every request.
 */
describe('Function: indexDocument', () => {
  it('lets the event loop run between batches, and indexes every chunk', async () => {
    const retrieval = new EmbeddedIndex();
    const deps = { retrieval, embedder: new OfflineHashEmbedder(), chunker: inProcessChunker };
    let turns = 0;
    let indexing = true;
    const countTurns = () => {
      if (!indexing) return;
      turns += 1;
      setImmediate(countTurns);
    };
    setImmediate(countTurns);

    const written = await indexDocument(
      deps,
      'org_a',
      'ds_a',
      'doc_0123456789abcdef',
      largeDocument(300),
      'hash',
    );
    indexing = false;

    expect(written.chunks).toBeGreaterThan(256);
    expect(turns).toBeGreaterThanOrEqual(Math.floor(written.chunks / 64));
    expect(await retrieval.count({ orgId: 'org_a', dataSourceIds: ['ds_a'] })).toBe(written.chunks);
  });
});
