import {
  appendFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedIndex } from '../../../layers/core/adapters/local/embedded-index';
import { IndexFileCorruptError } from '../../../layers/core/adapters/local/index-files';
import type {
  ChunkText,
  IndexedChunk,
  IndexedDocument,
  RetrievalIndex,
  ScoredChunk,
  SearchFilter,
  WeightedTerm,
} from '../../../layers/core/ports/retrieval-index.port';
import { describeRetrievalIndexContract } from '../../contract/retrieval-index.contract';

const temporaryDirectory = () => mkdtempSync(join(tmpdir(), 'svc-index-'));

/**
 * Every write goes to one EmbeddedIndex, every read to a fresh one loaded
 * from the same directory: the whole contract then holds for what was
 * persisted, not just for what is in memory.
 */
class ReloadingIndex implements RetrievalIndex {
  #current: EmbeddedIndex;

  constructor(
    readonly directory: string,
    readonly compactLogBytes: number,
  ) {
    this.#current = this.#open();
  }

  #open(): EmbeddedIndex {
    return new EmbeddedIndex({ directory: this.directory, compactLogBytes: this.compactLogBytes });
  }

  async #reload(): Promise<void> {
    await this.#current.close();
    this.#current = this.#open();
  }

  async close(): Promise<void> {
    await this.#current.close();
  }

  async upsert(chunks: readonly IndexedChunk[]): Promise<void> {
    await this.#current.upsert(chunks);
    await this.#reload();
  }

  async deleteDocument(orgId: string, dataSourceId: string, documentId: string): Promise<void> {
    await this.#current.deleteDocument(orgId, dataSourceId, documentId);
    await this.#reload();
  }

  async deleteDataSource(orgId: string, dataSourceId: string): Promise<void> {
    await this.#current.deleteDataSource(orgId, dataSourceId);
    await this.#reload();
  }

  documentHashes(
    orgId: string,
    dataSourceId: string,
    embedderId?: string,
  ): Promise<Map<string, string>> {
    return this.#current.documentHashes(orgId, dataSourceId, embedderId);
  }

  knn(
    filter: SearchFilter,
    vector: readonly number[],
    embedderId: string,
    k: number,
  ): Promise<ScoredChunk[]> {
    return this.#current.knn(filter, vector, embedderId, k);
  }

  bm25(
    filter: SearchFilter,
    query: string,
    k: number,
    expansion?: readonly WeightedTerm[],
  ): Promise<ScoredChunk[]> {
    return this.#current.bm25(filter, query, k, expansion);
  }

  count(filter: SearchFilter): Promise<number> {
    return this.#current.count(filter);
  }

  documents(orgId: string, dataSourceId: string): Promise<IndexedDocument[]> {
    return this.#current.documents(orgId, dataSourceId);
  }

  documentChunks(
    orgId: string,
    dataSourceId: string,
    documentId: string,
    limit: number,
  ): Promise<{ chunks: ChunkText[]; total: number }> {
    return this.#current.documentChunks(orgId, dataSourceId, documentId, limit);
  }
}

describeRetrievalIndexContract('EmbeddedIndex in memory', async () => ({
  index: new EmbeddedIndex(),
  cleanup: async () => undefined,
}));

describeRetrievalIndexContract('EmbeddedIndex on disk', async () => {
  const directory = temporaryDirectory();
  const index = new EmbeddedIndex({ directory });
  return {
    index,
    cleanup: async () => {
      await index.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
});

describeRetrievalIndexContract(
  'EmbeddedIndex reloaded from its log after every write',
  async () => {
    const directory = temporaryDirectory();
    const index = new ReloadingIndex(directory, 64 * 1024 * 1024);
    return {
      index,
      cleanup: async () => {
        await index.close();
        rmSync(directory, { recursive: true, force: true });
      },
    };
  },
);

describeRetrievalIndexContract(
  'EmbeddedIndex reloaded from a snapshot after every write',
  async () => {
    const directory = temporaryDirectory();
    // A log of any size is folded into the snapshot at once.
    const index = new ReloadingIndex(directory, 0);
    return {
      index,
      cleanup: async () => {
        await index.close();
        rmSync(directory, { recursive: true, force: true });
      },
    };
  },
);

function chunk(overrides: Partial<IndexedChunk> = {}): IndexedChunk {
  return {
    chunk_id: 'chk_1',
    org_id: 'org_a',
    data_source_id: 'ds_1',
    document_id: 'doc_1',
    document_title: 'Title',
    document_url: null,
    heading_path: [],
    text: 'some text',
    position: 0,
    document_hash: 'h',
    embedder_id: 'e/3',
    embedding: [1, 0, 0],
    ...overrides,
  };
}

describe('Class: EmbeddedIndex', () => {
  let directory: string;
  beforeEach(() => {
    directory = temporaryDirectory();
  });
  afterEach(() => {
    rmSync(directory, { recursive: true, force: true });
  });

  it('keeps each organization in files of its own', async () => {
    // Prepare
    const index = new EmbeddedIndex({ directory, compactLogBytes: 0 });

    // Act
    await index.upsert([
      chunk({ text: 'alpha secret' }),
      chunk({ chunk_id: 'chk_2', org_id: 'org_b', text: 'beta secret' }),
    ]);
    await index.close();

    // Assess
    expect(readdirSync(directory).sort()).toEqual([
      'org_a.log',
      'org_a.snapshot',
      'org_b.log',
      'org_b.snapshot',
    ]);
    expect(readFileSync(join(directory, 'org_a.snapshot'), 'latin1')).not.toContain('beta secret');
    expect(readFileSync(join(directory, 'org_b.snapshot'), 'latin1')).not.toContain('alpha secret');
  });

  it('names files so no organization id can leave the directory', async () => {
    const index = new EmbeddedIndex({ directory });

    await index.upsert([chunk({ org_id: '../escape' }), chunk({ org_id: '..' })]);
    await index.close();

    expect(readdirSync(directory).sort()).toEqual(['%2E%2E%2Fescape.log', '%2E%2E.log']);
  });

  it('loads lazily: an organization never searched is never read', async () => {
    const writer = new EmbeddedIndex({ directory });
    await writer.upsert([chunk()]);
    await writer.close();
    writeFileSync(join(directory, 'org_b.snapshot'), 'not a snapshot');

    const reader = new EmbeddedIndex({ directory });

    expect(await reader.count({ orgId: 'org_a' })).toBe(1);
    await expect(reader.count({ orgId: 'org_b' })).rejects.toBeInstanceOf(IndexFileCorruptError);
  });

  it('commits concurrent writes together (P112), each resolving once on disk, in call order', async () => {
    // Prepare
    const index = new EmbeddedIndex({ directory });
    const documents = Array.from({ length: 40 }, (_, n) => `doc_${n}`);

    // Act: a document's delete and upsert, for 40 documents at once, as concurrent syncs write them
    await Promise.all(
      documents.map(async (documentId, n) => {
        await index.deleteDocument('org_a', 'ds_1', documentId);
        await index.upsert([
          chunk({ chunk_id: `chk_${n}`, document_id: documentId, text: `text ${n}` }),
        ]);
      }),
    );
    // A later delete is applied after the upsert it follows, on disk as in memory
    await Promise.all([
      index.deleteDocument('org_a', 'ds_1', 'doc_3'),
      index.upsert([chunk({ chunk_id: 'chk_late', document_id: 'doc_late' })]),
    ]);
    await index.close();

    // Assess: one line per operation, everything there after a reload
    const lines = readFileSync(join(directory, 'org_a.log'), 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(82);
    const reader = new EmbeddedIndex({ directory });
    expect(await reader.count({ orgId: 'org_a' })).toBe(40);
    const hashes = await reader.documentHashes('org_a', 'ds_1');
    expect(hashes.has('doc_3')).toBe(false);
    expect(hashes.has('doc_late')).toBe(true);
  });

  it('ignores a last log line torn by a crash', async () => {
    const writer = new EmbeddedIndex({ directory });
    await writer.upsert([chunk()]);
    await writer.close();
    appendFileSync(join(directory, 'org_a.log'), '{"op":"upsert","chunks":[{"chunk_id');

    const reader = new EmbeddedIndex({ directory });

    expect(await reader.count({ orgId: 'org_a' })).toBe(1);
  });

  it('cuts a torn last line off before appending, so the next start still loads (issue 13, kill -9)', async () => {
    // Prepare: a write torn by a crash, then a restart that writes again
    const writer = new EmbeddedIndex({ directory });
    await writer.upsert([chunk()]);
    await writer.close();
    appendFileSync(join(directory, 'org_a.log'), '{"op":"upsert","chunks":[{"chunk_id');
    const restarted = new EmbeddedIndex({ directory });
    await restarted.upsert([chunk({ chunk_id: 'chk_2' })]);
    await restarted.close();

    // Act: the start after that
    const reader = new EmbeddedIndex({ directory });

    // Assess
    expect(await reader.count({ orgId: 'org_a' })).toBe(2);
    expect(readFileSync(join(directory, 'org_a.log'), 'utf8')).not.toContain('"chunk_id{');
  });

  it('refuses a log damaged before its last line', async () => {
    const writer = new EmbeddedIndex({ directory });
    await writer.upsert([chunk()]);
    await writer.close();
    const log = join(directory, 'org_a.log');
    writeFileSync(log, `garbage\n${readFileSync(log, 'utf8')}`);

    const reader = new EmbeddedIndex({ directory });

    await expect(reader.count({ orgId: 'org_a' })).rejects.toBeInstanceOf(IndexFileCorruptError);
  });

  it('refuses vectors of another length from the same embedder, changing nothing', async () => {
    const index = new EmbeddedIndex();
    await index.upsert([chunk()]);

    const mixed = index.upsert([
      chunk({ chunk_id: 'chk_2' }),
      chunk({ chunk_id: 'chk_3', embedding: [1, 0] }),
    ]);

    await expect(mixed).rejects.toThrow(RangeError);
    expect(await index.count({ orgId: 'org_a' })).toBe(1);
  });

  it('refuses a query vector of the wrong length', async () => {
    const index = new EmbeddedIndex();
    await index.upsert([chunk()]);

    await expect(index.knn({ orgId: 'org_a' }, [1, 0], 'e/3', 5)).rejects.toThrow(RangeError);
  });

  it('refuses vectors that are not finite numbers', async () => {
    const index = new EmbeddedIndex();

    await expect(index.upsert([chunk({ embedding: [Number.NaN, 0, 0] })])).rejects.toThrow(
      RangeError,
    );
  });

  it('stays correct after most of a large partition is deleted (compaction)', async () => {
    // Prepare: 3,000 chunks, then delete 2,000 (enough holes to renumber the partition).
    const index = new EmbeddedIndex({ directory });
    const angle = (i: number) => [Math.cos(i / 1000), Math.sin(i / 1000), 0];
    await index.upsert(
      Array.from({ length: 3000 }, (_, i) =>
        chunk({
          chunk_id: `chk_${i}`,
          document_id: `doc_${i}`,
          text: i % 2 === 0 ? `even number ${i}` : `odd number ${i}`,
          embedding: angle(i),
        }),
      ),
    );

    // Act
    for (let i = 0; i < 2000; i += 1) await index.deleteDocument('org_a', 'ds_1', `doc_${i}`);
    await index.upsert([
      chunk({ chunk_id: 'chk_new', document_id: 'doc_new', text: 'even newer' }),
    ]);
    await index.close();
    const reloaded = new EmbeddedIndex({ directory });

    // Assess
    for (const current of [index, reloaded]) {
      expect(await current.count({ orgId: 'org_a' })).toBe(1001);
      const [nearest] = await current.knn({ orgId: 'org_a' }, angle(0), 'e/3', 1);
      expect(nearest?.chunk.chunk_id).toBe('chk_new');
      const evens = await current.bm25({ orgId: 'org_a' }, 'even', 2000);
      expect(evens).toHaveLength(501);
      expect(
        evens.every(
          (hit) => Number(hit.chunk.chunk_id.slice(4)) >= 2000 || hit.chunk.chunk_id === 'chk_new',
        ),
      ).toBe(true);
    }
  });
});
