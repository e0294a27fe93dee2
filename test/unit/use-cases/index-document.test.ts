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

  describe('P202: what is written to the index', () => {
    /** The embedded index, with the writes it was asked for recorded. */
    function recordingIndex() {
      const index = new EmbeddedIndex();
      const writes: string[] = [];
      const deleteDocument = index.deleteDocument.bind(index);
      const upsert = index.upsert.bind(index);
      index.deleteDocument = async (orgId, dataSourceId, documentId) => {
        writes.push(`delete ${documentId}`);
        await deleteDocument(orgId, dataSourceId, documentId);
      };
      index.upsert = async (chunks) => {
        writes.push(`upsert ${chunks.length}`);
        await upsert(chunks);
      };
      return { index, writes };
    }
    const deps = (retrieval: EmbeddedIndex) => ({
      retrieval,
      embedder: new OfflineHashEmbedder(),
      chunker: inProcessChunker,
    });

    it('replaces a document the index may hold: its old tail goes', async () => {
      const { index, writes } = recordingIndex();
      await indexDocument(deps(index), 'org_a', 'ds_a', 'doc_a', largeDocument(30), 'v1');
      writes.length = 0;

      const written = await indexDocument(
        deps(index),
        'org_a',
        'ds_a',
        'doc_a',
        largeDocument(2),
        'v2',
      );

      expect(writes).toEqual(['delete doc_a', `upsert ${written.chunks}`]);
      expect(await index.count({ orgId: 'org_a', dataSourceIds: ['ds_a'] })).toBe(written.chunks);
    });

    it('writes a new document without a delete before it', async () => {
      const { index, writes } = recordingIndex();

      const written = await indexDocument(
        deps(index),
        'org_a',
        'ds_a',
        'doc_new',
        largeDocument(2),
        'v1',
        { new: true },
      );

      expect(writes).toEqual([`upsert ${written.chunks}`]);
      expect(await index.count({ orgId: 'org_a', dataSourceIds: ['ds_a'] })).toBe(written.chunks);
    });
  });
});

describe('Function: indexDocument, a document of several index writes', () => {
  /** The embedded index, failing the write after `writes` (a crash between two of them). */
  class CrashingIndex extends EmbeddedIndex {
    constructor(private writesLeft: number) {
      super();
    }

    override async upsert(...args: Parameters<EmbeddedIndex['upsert']>): Promise<void> {
      if (this.writesLeft === 0) throw new Error('crashed');
      this.writesLeft -= 1;
      await super.upsert(...args);
    }
  }

  const deps = (retrieval: EmbeddedIndex) => ({
    retrieval,
    embedder: new OfflineHashEmbedder(),
    chunker: inProcessChunker,
  });

  it('leaves no trace of its real hash until every chunk is written, so a resumed sync writes it again', async () => {
    // Prepare: 560 paragraphs make two batches of 512 chunks.
    const document = largeDocument(560);
    const complete = new EmbeddedIndex();
    const { chunks } = await indexDocument(
      deps(complete),
      'org_a',
      'ds_a',
      'doc_0123456789abcdef',
      document,
      'hash',
    );
    expect(chunks).toBeGreaterThan(512);
    const writes = Math.ceil(chunks / 512);

    for (let crashAfter = 0; crashAfter < 2 * writes - 1; crashAfter += 1) {
      // Act
      const crashed = new CrashingIndex(crashAfter);
      await expect(
        indexDocument(deps(crashed), 'org_a', 'ds_a', 'doc_0123456789abcdef', document, 'hash'),
      ).rejects.toThrow('crashed');

      // Assess: whatever was written, it does not pass for the whole document.
      const hashes = await crashed.documentHashes('org_a', 'ds_a');
      expect(hashes.get('doc_0123456789abcdef') ?? 'absent').not.toBe('hash');
    }
    expect((await complete.documentHashes('org_a', 'ds_a')).get('doc_0123456789abcdef')).toBe(
      'hash',
    );
    expect(await complete.count({ orgId: 'org_a' })).toBe(chunks);
  });
});
