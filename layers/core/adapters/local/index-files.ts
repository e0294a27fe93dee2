import { createHash, randomBytes } from 'node:crypto';
import { closeSync, fstatSync, mkdirSync, openSync, readSync } from 'node:fs';
import {
  type FileHandle,
  mkdir,
  open,
  readdir,
  readFile,
  rename,
  stat,
  truncate,
  unlink,
} from 'node:fs/promises';
import { endianness } from 'node:os';
import { join } from 'node:path';
import * as z from 'zod/mini';
import { AnnGraph } from './ann-graph';
import { IndexFileCorruptError } from './index-file-error';
import type {
  GraphLoader,
  LoadedImage,
  PartitionImage,
  StoredChunk,
} from './partition/index-partition';
import { PositionalFile } from './positional-file';
import { storedChunkSchema } from './snapshot-chunk';
import {
  encodeSnapshotV3,
  encodeSnapshotV4,
  type GraphDescriptor,
  MAGIC_V3,
  MAGIC_V4,
  readSnapshotV3,
  SnapshotFormatError,
} from './snapshot-format';
import {
  encodeSnapshotV1,
  encodeSnapshotV2,
  MAGIC_V1,
  MAGIC_V2,
  readSnapshotV1,
  readSnapshotV2,
} from './snapshot-legacy';

export { IndexFileCorruptError };

/**
 * One organization's embedded index on disk: a snapshot and an append-only
 * log of what changed since.
 *
 * - `<org>.snapshot`: the whole partition at one moment, in format 4
 *   (snapshot-format.ts): binary sections, the large ones (vectors,
 *   postings, texts, the chunks' keys) read in place when a search needs them, the file kept
 *   open for that (positional-file.ts). Written to a temporary file, flushed, then renamed over
 *   the old one, so a crash leaves the old or the new snapshot, never half of one.
 * - `<org>.<slab>-<random>.graph`: a slab's ANN graph (ann-graph.ts), named by
 *   the snapshot that was written with it, with its checksum. Written and
 *   flushed before that snapshot is renamed into place; graphs no snapshot
 *   names (older ones, or one whose snapshot a crash never committed) are
 *   deleted after the next snapshot. A missing or damaged graph is rebuilt
 *   from the vectors.
 * - Snapshots in formats 1 and 2 (snapshot-legacy.ts) and 3 still load;
 *   EmbeddedIndex then writes them again in format 4 (P127).
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

const logRecord = z.discriminatedUnion('op', [
  z.object({
    op: z.literal('upsert'),
    // The vector as little-endian float32, base64: a fifth of the size of JSON numbers.
    chunks: z.array(z.extend(storedChunkSchema, { embedding: z.string() })),
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

export type LoadedIndex = (
  | {
      /**
       * A format-4 snapshot (or none), or a format-2 or -3 one (to be written
       * again in format 4): the partition's image and a loader of its graphs.
       */
      readonly format: 2 | 3 | 4;
      readonly image: LoadedImage | null;
      readonly loadGraph: GraphLoader;
    }
  | {
      /** A format-1 snapshot: its chunks, to be inserted one by one and written again. */
      readonly format: 1;
      readonly chunks: readonly { readonly chunk: StoredChunk; readonly embedding: Float32Array }[];
    }
) & { readonly operations: readonly IndexOperation[] };

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
  /** The directory exists (made once, not before every append). */
  #directoryMade = false;

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

  /** The snapshot and the logged operations after it (both empty for a new organization). */
  async load(): Promise<LoadedIndex> {
    const snapshot = await this.#readSnapshot();
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
    return { ...snapshot, operations };
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
  append(operation: IndexOperation): Promise<void> {
    return this.appendAll([operation]);
  }

  /**
   * Appends operations to the log, one line each, in one write flushed to
   * disk once (the index's group commit). A crash can tear only the
   * last line written, as with one operation.
   */
  async appendAll(operations: readonly IndexOperation[]): Promise<void> {
    if (operations.length === 0) return;
    const text = operations.map((operation) => `${JSON.stringify(logLine(operation))}\n`).join('');
    if (!this.#directoryMade) {
      await mkdir(this.#directory, { recursive: true });
      this.#directoryMade = true;
    }
    const handle = await open(this.logPath, 'a');
    try {
      await handle.write(text);
      await handle.datasync();
    } finally {
      await handle.close();
    }
    this.#logBytes += Buffer.byteLength(text);
  }

  /**
   * Replaces the snapshot with `image` (atomically), in format 4, then
   * empties the log. Everything is encoded (and graphs saved) before the
   * first await: the image views the partition's memory, which the next
   * write changes.
   */
  async writeSnapshot(image: PartitionImage): Promise<void> {
    await this.#writeSnapshotIn(image, encodeSnapshotV4);
  }

  /** Writes a format-3 snapshot (before the keys were read in place): only to test its conversion. */
  async writeFormat3Snapshot(image: PartitionImage): Promise<void> {
    await this.#writeSnapshotIn(image, encodeSnapshotV3);
  }

  async #writeSnapshotIn(
    image: PartitionImage,
    encode: typeof encodeSnapshotV4 | typeof encodeSnapshotV3,
  ): Promise<void> {
    const graphs = this.#saveGraphs(image);
    const { sections, head } = encode(this.#orgId, image);
    // The header names each graph with its checksum, known once the file is flushed and read back.
    const descriptors: (GraphDescriptor | null)[] = [];
    for (const graph of graphs) {
      descriptors.push(
        graph && {
          file: graph.file,
          size: graph.size,
          blake2b512: await this.#flushAndDigest(graph.file, 'blake2b512'),
          sampled: sampledDigest(join(this.#directory, graph.file)),
        },
      );
    }
    await this.#writeSnapshotParts([...head(descriptors), ...sections]);
    await this.#deleteGraphsOtherThan(new Set(graphs.flatMap((graph) => graph?.file ?? [])));
  }

  /** Writes a format-1 snapshot (before P102): only to test that old data directories still load. */
  async writeFormat1Snapshot(
    entries: Iterable<{ readonly chunk: StoredChunk; readonly embedding: Float32Array }>,
  ): Promise<void> {
    await this.#writeSnapshotParts(encodeSnapshotV1(this.#orgId, entries));
  }

  /**
   * Writes a format-2 snapshot with its graphs: only to test that such
   * directories still load (it encodes after awaiting: nothing may write meanwhile).
   */
  async writeFormat2Snapshot(image: PartitionImage): Promise<void> {
    const graphs = this.#saveGraphs(image);
    const descriptors = [];
    for (const graph of graphs) {
      descriptors.push(
        graph && {
          file: graph.file,
          size: graph.size,
          sha256: await this.#flushAndDigest(graph.file, 'sha256'),
        },
      );
    }
    await this.#writeSnapshotParts(encodeSnapshotV2(this.#orgId, image, descriptors));
    await this.#deleteGraphsOtherThan(new Set(graphs.flatMap((graph) => graph?.file ?? [])));
  }

  /** Saves each slab's graph (when it has one) to a new file; synchronous, like the image's views. */
  #saveGraphs(image: PartitionImage): ({ file: string; size: number } | null)[] {
    mkdirSync(this.#directory, { recursive: true });
    const stem = fileStem(this.#orgId);
    return image.slabs.map((slab, number) => {
      if (!slab.saveGraph) return null;
      const file = `${stem}.${number}-${randomBytes(6).toString('hex')}.graph`;
      return { file, size: slab.saveGraph(join(this.#directory, file)) };
    });
  }

  async #flushAndDigest(file: string, algorithm: 'blake2b512' | 'sha256'): Promise<string> {
    const path = join(this.#directory, file);
    await syncFile(path);
    return digestOfFile(algorithm, path);
  }

  /** Writes `parts` to a temporary file, flushes it, renames it over the snapshot, then empties the log. */
  async #writeSnapshotParts(parts: readonly Uint8Array[]): Promise<void> {
    await mkdir(this.#directory, { recursive: true });
    const temporary = `${this.snapshotPath}.${randomBytes(6).toString('hex')}.tmp`;
    const handle = await open(temporary, 'w');
    try {
      for (const part of parts) await handle.write(part);
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

  /** Deletes this organization's graph files that the current snapshot does not name. */
  async #deleteGraphsOtherThan(kept: ReadonlySet<string>): Promise<void> {
    const prefix = `${fileStem(this.#orgId)}.`;
    for (const name of await readdir(this.#directory)) {
      // A stem holds no dot (fileStem encodes them), so the prefix names this organization's files only.
      if (name.startsWith(prefix) && name.endsWith('.graph') && !kept.has(name)) {
        await unlink(join(this.#directory, name)).catch(() => undefined);
      }
    }
  }

  async #readSnapshot(): Promise<
    | { format: 2 | 3 | 4; image: LoadedImage | null; loadGraph: GraphLoader }
    | { format: 1; chunks: Extract<LoadedIndex, { format: 1 }>['chunks'] }
  > {
    let handle: FileHandle;
    try {
      handle = await open(this.snapshotPath, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      return { format: 4, image: null, loadGraph: () => undefined };
    }
    try {
      const magic = Buffer.alloc(MAGIC_V3.length);
      const { bytesRead } = await handle.read(magic, 0, magic.length, 0);
      const version = magic.equals(MAGIC_V4) ? 4 : magic.equals(MAGIC_V3) ? 3 : undefined;
      if (bytesRead === magic.length && version !== undefined) {
        if (endianness() !== 'LE') {
          throw new SnapshotFormatError('snapshots are little-endian; this machine is not');
        }
        // Read in place: the file stays open while the partition reads from it.
        const { image, graphs } = readSnapshotV3(
          PositionalFile.open(this.snapshotPath),
          this.#orgId,
          version,
        );
        return {
          format: version,
          image,
          loadGraph: this.#graphLoader(graphs, 'blake2b512', (graph) => graph.blake2b512),
        };
      }
      // Formats 1 and 2 are read whole, once: the start writes them again in format 4.
      const file = await handle.readFile();
      if (magic.equals(MAGIC_V2)) {
        const { image, graphs } = readSnapshotV2(file, this.#orgId);
        return {
          format: 2,
          image,
          loadGraph: this.#graphLoader(graphs, 'sha256', (graph) => graph.sha256),
        };
      }
      if (magic.equals(MAGIC_V1)) return { format: 1, chunks: readSnapshotV1(file, this.#orgId) };
      throw new SnapshotFormatError('not an index snapshot');
    } catch (error) {
      if (error instanceof SnapshotFormatError) {
        throw new IndexFileCorruptError(this.snapshotPath, error.message, { cause: error });
      }
      throw error;
    } finally {
      await handle.close();
    }
  }

  /** Loads a slab's graph as the snapshot names it, or undefined (rebuilt at the next search). */
  #graphLoader<G extends { readonly file: string; readonly size: number }>(
    graphs: readonly (G | null)[],
    algorithm: 'blake2b512' | 'sha256',
    expectedDigest: (graph: G) => string,
  ): GraphLoader {
    return (slab, dimensions) => {
      const saved = graphs[slab];
      if (!saved) return undefined;
      try {
        const path = join(this.#directory, saved.file);
        // usearch reads a damaged file as if it were whole (and may crash the process): check it first,
        // by its sampled digest when the snapshot has one (a large graph's full digest took seconds).
        const sampled = (saved as { readonly sampled?: SampledDigest }).sampled;
        if (sampled) {
          const found = sampledDigest(path);
          if (found.bytes !== sampled.bytes || found.blake2b512 !== sampled.blake2b512)
            return undefined;
        } else if (digestOfFile(algorithm, path) !== expectedDigest(saved)) return undefined;
        return AnnGraph.load(path, dimensions, saved.size);
      } catch {
        // Lost or damaged: the graph is a cache of the vectors, rebuilt at the next search.
        return undefined;
      }
    };
  }
}

/**
 * A file's digest (BLAKE2b-512 for format 3 and 4's graphs: 3× faster than SHA-256
 * here, and the check is on every start's path; format 2 used SHA-256), read through one reused 4 MiB buffer: reading a 90 MiB
 * graph whole into fresh memory cost 0.5 s of page faults on the bench's
 * virtual machine, for bytes that are hashed and dropped.
 */
function digestOfFile(algorithm: 'blake2b512' | 'sha256', path: string): string {
  const hash = createHash(algorithm);
  const buffer = Buffer.allocUnsafe(4 * 1024 * 1024);
  const descriptor = openSync(path, 'r');
  try {
    for (;;) {
      const read = readSync(descriptor, buffer, 0, buffer.length, null);
      if (read === 0) break;
      hash.update(buffer.subarray(0, read));
    }
  } finally {
    closeSync(descriptor);
  }
  return hash.digest('hex');
}

/** A file's size and the BLAKE2b-512 of the bytes `sampledDigest` reads. */
interface SampledDigest {
  readonly bytes: number;
  readonly blake2b512: string;
}

/** Files up to this size are digested whole; larger ones, by samples. */
const WHOLE_DIGEST_BYTES = 64 * 1024 * 1024;
const SAMPLE_EDGE_BYTES = 4 * 1024 * 1024;
const SAMPLE_BLOCKS = 256;
const SAMPLE_BLOCK_BYTES = 64 * 1024;

/**
 * The digest a start checks a graph against: of the whole file up to 64 MiB,
 * and beyond that of its first and last 4 MiB (the header, and the end a
 * truncation cuts) and 256 blocks of 64 KiB spread evenly over the rest
 * (24 MiB read whatever the size, where the whole 874 MiB graph of a million
 * vectors took seconds). With the size, it catches a cut, a replaced or a
 * grossly damaged file; a flipped bit between the samples is not caught at
 * load (decisions/embedded-index.md says why that is accepted).
 */
function sampledDigest(path: string): SampledDigest {
  const descriptor = openSync(path, 'r');
  try {
    const bytes = fstatSync(descriptor).size;
    const hash = createHash('blake2b512');
    const readAt = (position: number, length: number) => {
      const buffer = Buffer.allocUnsafe(length);
      let done = 0;
      while (done < length) {
        const read = readSync(descriptor, buffer, done, length - done, position + done);
        if (read === 0) break;
        done += read;
      }
      hash.update(buffer.subarray(0, done));
    };
    if (bytes <= WHOLE_DIGEST_BYTES) readAt(0, bytes);
    else {
      readAt(0, SAMPLE_EDGE_BYTES);
      const span = bytes - 2 * SAMPLE_EDGE_BYTES - SAMPLE_BLOCK_BYTES;
      for (let block = 0; block < SAMPLE_BLOCKS; block += 1) {
        readAt(SAMPLE_EDGE_BYTES + Math.floor((span * block) / SAMPLE_BLOCKS), SAMPLE_BLOCK_BYTES);
      }
      readAt(bytes - SAMPLE_EDGE_BYTES, SAMPLE_EDGE_BYTES);
    }
    return { bytes, blake2b512: hash.digest('hex') };
  } finally {
    closeSync(descriptor);
  }
}

/** Flushes a file written by another hand (the graph's library) to disk. */
async function syncFile(path: string): Promise<void> {
  const handle = await open(path, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** An operation as one log record (vectors as base64 float32). */
function logLine(operation: IndexOperation): object {
  return operation.op === 'upsert'
    ? {
        op: 'upsert',
        chunks: operation.chunks.map(({ chunk, embedding }) => ({
          ...chunk,
          embedding: encodeVector(embedding),
        })),
      }
    : operation;
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
