import { mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedIndex } from '../../../layers/core/adapters/local/embedded-index';
import { IndexFileCorruptError } from '../../../layers/core/adapters/local/index-files';
import type { IndexedChunk } from '../../../layers/core/ports/retrieval-index.port';

const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'];

function chunk(i: number): IndexedChunk {
  return {
    chunk_id: `chk_${i}`,
    org_id: 'org_a',
    data_source_id: `ds_${i % 3}`,
    document_id: `doc_${Math.floor(i / 2)}`,
    document_title: `Title ${i}`,
    document_url: null,
    heading_path: i % 5 === 0 ? ['Guide', WORDS[i % 8] ?? ''] : [],
    text: Array.from({ length: 12 }, (_, j) => WORDS[(i * 7 + j * j) % 8]).join(' '),
    position: 0,
    document_hash: `h${i}`,
    embedder_id: 'test/4',
    embedding: [Math.sin(i), Math.cos(i), Math.sin(2 * i), 1],
  };
}

const ids = (hits: { chunk: { chunk_id: string } }[]) => hits.map((hit) => hit.chunk.chunk_id);

describe('EmbeddedIndex reading its snapshot in place', () => {
  let directory: string;
  const chunks = Array.from({ length: 120 }, (_, i) => chunk(i));

  beforeEach(async () => {
    directory = mkdtempSync(join(tmpdir(), 'svc-index-in-place-'));
    const writer = new EmbeddedIndex({ directory });
    await writer.upsert(chunks);
    await writer.deleteDocument('org_a', 'ds_1', 'doc_2');
    await writer.snapshot();
    await writer.close();
  });

  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it('answers as the index that wrote it: vectors, postings and text read from the file', async () => {
    // Prepare
    const memory = new EmbeddedIndex();
    await memory.upsert(chunks);
    await memory.deleteDocument('org_a', 'ds_1', 'doc_2');
    const loaded = new EmbeddedIndex({ directory });
    const filter = { orgId: 'org_a', dataSourceIds: ['ds_0', 'ds_2'] };

    // Act and assess
    for (const query of ['alpha bravo', 'guide echo', 'hotel']) {
      const [fromFile, fromMemory] = await Promise.all(
        [loaded, memory].map((index) => index.bm25(filter, query, 7)),
      );
      expect(ids(fromFile ?? [])).toEqual(ids(fromMemory ?? []));
      expect(fromFile?.map((hit) => hit.score)).toEqual(fromMemory?.map((hit) => hit.score));
      expect(fromFile?.map((hit) => hit.chunk.text)).toEqual(
        fromMemory?.map((hit) => hit.chunk.text),
      );
    }
    const vector = [0.3, -0.2, 0.9, 1];
    const [near, nearInMemory] = await Promise.all(
      [loaded, memory].map((index) => index.knn(filter, vector, 'test/4', 9)),
    );
    expect(ids(near ?? [])).toEqual(ids(nearInMemory ?? []));
    expect(near?.[0]?.chunk.embedding).toEqual(nearInMemory?.[0]?.chunk.embedding);
  });

  it('changes after loading without changing what it read in place', async () => {
    // Prepare
    const loaded = new EmbeddedIndex({ directory });
    await loaded.count({ orgId: 'org_a' });

    // Act: a new chunk, a removal, then a restart from the snapshot this writes.
    await loaded.upsert([{ ...chunk(500), text: 'zulu zulu', embedding: [0, 0, 1, 0] }]);
    await loaded.deleteDocument('org_a', 'ds_0', 'doc_0');
    await loaded.snapshot();
    await loaded.close();
    const restarted = new EmbeddedIndex({ directory });

    // Assess
    expect(ids(await restarted.bm25({ orgId: 'org_a' }, 'zulu', 3))).toEqual(['chk_500']);
    // doc_2 and doc_0 each lost their chunk of the data source named (4 and 0).
    expect(await restarted.count({ orgId: 'org_a' })).toBe(120 - 1 - 1 + 1);
    const hits = await restarted.bm25({ orgId: 'org_a' }, 'title 7', 1);
    expect(hits[0]?.chunk.text).toBe(chunk(7).text);
  });

  it('refuses a snapshot cut short, naming it, at load', async () => {
    // Prepare
    const snapshot = join(directory, 'org_a.snapshot');
    truncateSync(snapshot, statSync(snapshot).size - 1);

    // Act
    const loading = new EmbeddedIndex({ directory }).count({ orgId: 'org_a' });

    // Assess
    await expect(loading).rejects.toThrow(IndexFileCorruptError);
    await expect(loading).rejects.toThrow(snapshot);
  });

  it('refuses, naming the file, a search that needs bytes cut from the snapshot after the load', async () => {
    // Prepare: loaded (nothing of the postings or texts read yet), then the file loses its second half.
    const snapshot = join(directory, 'org_a.snapshot');
    const loaded = new EmbeddedIndex({ directory });
    await loaded.count({ orgId: 'org_a' });
    truncateSync(snapshot, Math.floor(statSync(snapshot).size / 2));

    // Act
    const searching = (async () => {
      const hits = await loaded.bm25({ orgId: 'org_a' }, 'alpha bravo charlie', 5);
      return hits.map((hit) => hit.chunk.text);
    })();

    // Assess: refused, never answered from the wrong bytes.
    await expect(searching).rejects.toThrow(IndexFileCorruptError);
    await expect(searching).rejects.toThrow('truncated since it was loaded');
  });

  it('decodes a chunk from the file when a search returns it, refusing one whose keys changed since', async () => {
    // Prepare: chunk 7's data source rewritten in its keys (valid JSON, the same length) before the start.
    const snapshot = join(directory, 'org_a.snapshot');
    const bytes = readFileSync(snapshot);
    const at = bytes.indexOf('["chk_7","ds_1"');
    expect(at).toBeGreaterThan(0);
    bytes.write('["chk_7","ds_2"', at);
    writeFileSync(snapshot, bytes);
    const loaded = new EmbeddedIndex({ directory });

    // Act: the start reads no keys; a search that returns chunk 7 reads them.
    const count = await loaded.count({ orgId: 'org_a' });
    const other = await loaded.bm25({ orgId: 'org_a' }, 'title 8', 1);
    const searching = loaded.bm25({ orgId: 'org_a' }, 'title 7', 1);

    // Assess: refused, naming the file, never served under the wrong data source.
    expect(count).toBe(119);
    expect(ids(other)).toEqual(['chk_8']);
    await expect(searching).rejects.toThrow(IndexFileCorruptError);
    await expect(searching).rejects.toThrow(`${snapshot}: the keys of document 7 are unreadable`);
  });

  it('refuses at load, naming it, a snapshot whose data source column names no data source', async () => {
    // Prepare: document 3's data source number (format 4's columns, after the header) set to 99.
    const snapshot = join(directory, 'org_a.snapshot');
    const bytes = readFileSync(snapshot);
    const headerLength = bytes.readUInt32LE(8);
    const documents = (
      JSON.parse(bytes.toString('utf8', 12, 12 + headerLength)) as {
        documents: number;
      }
    ).documents;
    const columns = 12 + headerLength + ((8 - ((12 + headerLength) % 8)) % 8);
    const dataSourceOf = columns + 4 * documents + 8 * (2 * documents + 1) + 8 * (documents + 1);
    bytes.writeInt32LE(99, dataSourceOf + 4 * 3);
    writeFileSync(snapshot, bytes);

    // Act
    const loading = new EmbeddedIndex({ directory }).count({ orgId: 'org_a' });

    // Assess
    await expect(loading).rejects.toThrow(IndexFileCorruptError);
    await expect(loading).rejects.toThrow(`${snapshot}: keys do not match the documents`);
  });
});
