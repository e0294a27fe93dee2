import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, stat, truncate, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod/mini';
import type { StoredChunk } from './index-partition';

/**
 * One organization's embedded index on disk: a snapshot and an append-only
 * log of what changed since.
 *
 * - `<org>.snapshot`: every chunk at one moment. Written to a temporary file,
 *   flushed, then renamed over the old one, so a crash leaves the old or the
 *   new snapshot, never half of one.
 * - `<org>.log`: one JSON line per write (upsert, delete document, delete data
 *   source), flushed before the write resolves, so a sync that was told its
 *   chunks are indexed finds them after a restart. A crash can tear only the
 *   last line, which loading cuts off the file.
 *
 * Loading reads the snapshot and replays the log. After a snapshot is written
 * the log is emptied; a crash in between replays operations the snapshot
 * already holds, which is harmless because each one sets or removes chunks
 * outright (replaying it again gives the same state).
 */

const MAGIC = Buffer.from('AQSIDX01', 'ascii');

const storedChunk = z.object({
  chunk_id: z.string(),
  org_id: z.string(),
  data_source_id: z.string(),
  document_id: z.string(),
  document_title: z.string(),
  document_url: z.nullable(z.string()),
  heading_path: z.array(z.string()),
  text: z.string(),
  position: z.number(),
  document_hash: z.string(),
  embedder_id: z.string(),
});

const snapshotHeader = z.object({
  version: z.literal(1),
  org_id: z.string(),
  chunks: z.array(storedChunk),
  /** Vector length of each chunk, in order; the vectors follow the header as float32. */
  dimensions: z.array(z.number().check(z.int(), z.positive())),
});

const logRecord = z.discriminatedUnion('op', [
  z.object({
    op: z.literal('upsert'),
    // The vector as little-endian float32, base64: a fifth of the size of JSON numbers.
    chunks: z.array(z.extend(storedChunk, { embedding: z.string() })),
  }),
  z.object({
    op: z.literal('deleteDocument'),
    data_source_id: z.string(),
    document_id: z.string(),
  }),
  z.object({ op: z.literal('deleteDataSource'), data_source_id: z.string() }),
]);

/** A write, as the log keeps it. */
export type IndexOperation =
  | {
      readonly op: 'upsert';
      readonly chunks: readonly {
        readonly chunk: StoredChunk;
        readonly embedding: ArrayLike<number>;
      }[];
    }
  | { readonly op: 'deleteDocument'; readonly data_source_id: string; readonly document_id: string }
  | { readonly op: 'deleteDataSource'; readonly data_source_id: string };

export interface LoadedIndex {
  readonly chunks: readonly { readonly chunk: StoredChunk; readonly embedding: Float32Array }[];
  readonly operations: readonly IndexOperation[];
}

/** Thrown when an index file cannot be read back (not a torn last log line, which is skipped). */
export class IndexFileCorruptError extends Error {
  constructor(
    readonly file: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(`${file}: ${message}`, options);
    this.name = 'IndexFileCorruptError';
  }
}

/**
 * A file name for an organization id that cannot leave the directory:
 * percent-encoding turns `/` and `\` into `%2F` and `%5C`, and dots are
 * encoded too so no name is `.` or `..`.
 */
function fileStem(orgId: string): string {
  if (orgId.length === 0) throw new RangeError('An organization id is required');
  return encodeURIComponent(orgId).replace(/\./g, '%2E');
}

/** The snapshot and log of one organization (see the top of this file for how they work together). */
export class OrgIndexFiles {
  readonly snapshotPath: string;
  readonly logPath: string;
  readonly #directory: string;
  readonly #orgId: string;
  #logBytes = 0;

  constructor(directory: string, orgId: string) {
    this.#directory = directory;
    this.#orgId = orgId;
    const stem = fileStem(orgId);
    this.snapshotPath = join(directory, `${stem}.snapshot`);
    this.logPath = join(directory, `${stem}.log`);
  }

  /** Bytes in the log since the last snapshot. */
  get logBytes(): number {
    return this.#logBytes;
  }

  /** The snapshot's chunks and the logged operations after it (both empty for a new organization). */
  async load(): Promise<LoadedIndex> {
    const chunks = await this.#readSnapshot();
    const log = await this.#readLogCuttingTornTail();
    this.#logBytes = Buffer.byteLength(log);
    const operations: IndexOperation[] = [];
    const lines = log.split('\n');
    lines.forEach((line, index) => {
      if (line.trim().length === 0) return;
      let parsed: z.infer<typeof logRecord>;
      try {
        parsed = logRecord.parse(JSON.parse(line));
      } catch (error) {
        throw new IndexFileCorruptError(this.logPath, `line ${index + 1} is not an operation`, {
          cause: error,
        });
      }
      operations.push(
        parsed.op === 'upsert'
          ? {
              op: 'upsert',
              chunks: parsed.chunks.map(({ embedding, ...chunk }) => ({
                chunk,
                embedding: decodeVector(embedding),
              })),
            }
          : parsed,
      );
    });
    return { chunks, operations };
  }

  /**
   * The log's complete lines. A last line without its newline is a write
   * torn by a crash (its caller was never told it was done): it is cut off
   * the file before anything else is appended, or the next operation would
   * be glued to it and the log refused at the following load (issue 13).
   */
  async #readLogCuttingTornTail(): Promise<string> {
    const log = await readIfPresent(this.logPath, 'utf8');
    if (log === undefined || log.length === 0 || log.endsWith('\n')) return log ?? '';
    const complete = log.slice(0, log.lastIndexOf('\n') + 1);
    await truncate(this.logPath, Buffer.byteLength(complete));
    return complete;
  }

  /** Appends one operation to the log and flushes it to disk. */
  async append(operation: IndexOperation): Promise<void> {
    const record =
      operation.op === 'upsert'
        ? {
            op: 'upsert',
            chunks: operation.chunks.map(({ chunk, embedding }) => ({
              ...chunk,
              embedding: encodeVector(embedding),
            })),
          }
        : operation;
    const line = `${JSON.stringify(record)}\n`;
    await mkdir(this.#directory, { recursive: true });
    const handle = await open(this.logPath, 'a');
    try {
      await handle.write(line);
      await handle.datasync();
    } finally {
      await handle.close();
    }
    this.#logBytes += Buffer.byteLength(line);
  }

  /** Replaces the snapshot with `entries` (atomically), then empties the log. */
  async writeSnapshot(
    entries: Iterable<{ readonly chunk: StoredChunk; readonly embedding: Float32Array }>,
  ): Promise<void> {
    const chunks: StoredChunk[] = [];
    const vectors: Float32Array[] = [];
    for (const { chunk, embedding } of entries) {
      chunks.push(chunk);
      vectors.push(embedding);
    }
    const header = Buffer.from(
      JSON.stringify({
        version: 1,
        org_id: this.#orgId,
        chunks,
        dimensions: vectors.map((vector) => vector.length),
      }),
      'utf8',
    );
    const length = Buffer.alloc(4);
    length.writeUInt32LE(header.length);
    // Pads the header so the float32 data starts on a 4-byte boundary and can be viewed in place.
    const padding = Buffer.alloc((4 - ((MAGIC.length + 4 + header.length) % 4)) % 4);
    const data = Buffer.alloc(vectors.reduce((sum, vector) => sum + vector.length, 0) * 4);
    let offset = 0;
    for (const vector of vectors) {
      for (const value of vector) offset = data.writeFloatLE(value, offset);
    }

    await mkdir(this.#directory, { recursive: true });
    const temporary = `${this.snapshotPath}.${randomBytes(6).toString('hex')}.tmp`;
    const handle = await open(temporary, 'w');
    try {
      for (const part of [MAGIC, length, header, padding, data]) await handle.write(part);
      await handle.sync();
    } catch (error) {
      await handle.close();
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
    await handle.close();
    await rename(temporary, this.snapshotPath);
    await syncDirectory(this.#directory);
    if (await exists(this.logPath)) await truncate(this.logPath, 0);
    this.#logBytes = 0;
  }

  async #readSnapshot(): Promise<LoadedIndex['chunks']> {
    const file = await readIfPresent(this.snapshotPath);
    if (file === undefined) return [];
    if (file.length < MAGIC.length + 4 || !file.subarray(0, MAGIC.length).equals(MAGIC)) {
      throw new IndexFileCorruptError(this.snapshotPath, 'not an index snapshot');
    }
    const headerLength = file.readUInt32LE(MAGIC.length);
    const headerStart = MAGIC.length + 4;
    let header: z.infer<typeof snapshotHeader>;
    try {
      header = snapshotHeader.parse(
        JSON.parse(file.toString('utf8', headerStart, headerStart + headerLength)),
      );
    } catch (error) {
      throw new IndexFileCorruptError(this.snapshotPath, 'unreadable header', { cause: error });
    }
    if (header.chunks.length !== header.dimensions.length || header.org_id !== this.#orgId) {
      throw new IndexFileCorruptError(this.snapshotPath, 'header does not match its organization');
    }
    let offset = headerStart + headerLength;
    offset += (4 - (offset % 4)) % 4;
    const total = header.dimensions.reduce((sum, count) => sum + count, 0);
    if (file.length !== offset + total * 4) {
      throw new IndexFileCorruptError(this.snapshotPath, 'vector data has the wrong length');
    }
    const floats = new Float32Array(total);
    for (let i = 0; i < total; i += 1) floats[i] = file.readFloatLE(offset + i * 4);
    let start = 0;
    return header.chunks.map((chunk, index) => {
      const count = header.dimensions[index] ?? 0;
      const embedding = floats.subarray(start, start + count);
      start += count;
      return { chunk, embedding };
    });
  }
}

function encodeVector(vector: ArrayLike<number>): string {
  const buffer = Buffer.alloc(vector.length * 4);
  for (let i = 0; i < vector.length; i += 1) buffer.writeFloatLE(vector[i] ?? 0, i * 4);
  return buffer.toString('base64');
}

function decodeVector(encoded: string): Float32Array {
  const buffer = Buffer.from(encoded, 'base64');
  const vector = new Float32Array(buffer.length / 4);
  for (let i = 0; i < vector.length; i += 1) vector[i] = buffer.readFloatLE(i * 4);
  return vector;
}

async function readIfPresent(path: string): Promise<Buffer | undefined>;
async function readIfPresent(path: string, encoding: 'utf8'): Promise<string | undefined>;
async function readIfPresent(
  path: string,
  encoding?: 'utf8',
): Promise<Buffer | string | undefined> {
  try {
    return encoding ? await readFile(path, encoding) : await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** Makes the rename itself durable (POSIX: a directory entry is flushed through the directory). */
async function syncDirectory(directory: string): Promise<void> {
  const handle = await open(directory, 'r');
  try {
    await handle.sync();
  } catch {
    // Some platforms (Windows) cannot fsync a directory; the rename is still atomic there.
  } finally {
    await handle.close();
  }
}
