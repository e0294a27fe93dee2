import * as z from 'zod/mini';
import { IndexFileCorruptError } from './index-file-error';
import type { PartitionImage, StoredChunk } from './partition/index-partition';
import type { LoadedImage, StoredChunkTable, StoredVectors } from './partition/partition-image';
import { type PositionalFile, TruncatedFileError } from './positional-file';
import { SnapshotChunk, type StoredBodies } from './snapshot-chunk';

/**
 * Snapshot format 3: the partition in sections of plain arrays, so a start
 * reads the small ones with one positioned read each and leaves the large
 * ones (vectors, postings, bodies) in the file, read where they are when a
 * search needs them (readSnapshotV3):
 *
 *     "AQSIDX03" · u32 header length · header (JSON) · padding to 8 bytes ·
 *     lengths (i32 per document) · body offsets (f64, 2 per document + 1) ·
 *     document frequencies (i32 per term) · postings per term (i32 per term) ·
 *     per slab: vectors (f32), slot documents (i32) · posting documents (i32
 *     per posting, term after term) · posting frequencies (i32 per posting) ·
 *     keys (JSON) · bodies (UTF-8)
 *
 * The header is small (slabs, terms, section sizes). Keys are each chunk's
 * identifying fields as one JSON array of tuples (null for a hole). Bodies
 * are the chunks' titles and texts back to back, read only when a search
 * returns the chunk (SnapshotChunk): parsing them was most of format 2's
 * 10–15 s start at 100k chunks. Postings are plain i32 arrays, not format
 * 2's varints: four times the bytes (120 MB at 100k chunks), but decoding
 * varints took 0.8 s there, and a term's postings are one read at a known
 * place (the sum of the counts before it).
 * Little-endian, as format 2.
 */

export const MAGIC_V3 = Buffer.from('AQSIDX03', 'ascii');

/**
 * Snapshot format 4: format 3 with the keys read in place too. Two
 * per-document sections follow the body offsets (key offsets, f64, one per
 * document + 1; data source numbers, i32, −1 for a hole), the header lists the
 * data sources by number, the keys section holds each chunk's tuple on its own
 * (back to back, none for a hole), and a headings section (JSON, the heading
 * paths of the chunks that have one) follows the bodies:
 *
 *     "AQSIDX04" · u32 header length · header (JSON) · padding to 8 bytes ·
 *     lengths · body offsets · key offsets · data source numbers ·
 *     document frequencies · postings per term · slabs · posting documents ·
 *     posting frequencies · keys · bodies · headings
 *
 * A start reads the columns and the headings, and makes nothing per chunk:
 * a chunk is decoded from its tuple when a search returns it (at a million
 * chunks, decoding every tuple at the start took about 2 s, most of the
 * restart, and left a million objects for every collection to walk).
 */
export const MAGIC_V4 = Buffer.from('AQSIDX04', 'ascii');

const graphDescriptor = z.object({
  file: z.string(),
  /** Vectors in the graph. */
  size: z.number().check(z.int(), z.nonnegative()),
  /** BLAKE2b-512 of the file: the graph's library trusts what it reads, so it is checked first. */
  blake2b512: z.string(),
  /** The file's size and the digest of its samples (index-files.ts), checked at load instead when present. */
  sampled: z.optional(z.object({ bytes: z.number(), blake2b512: z.string() })),
});

const headerV3 = z.object({
  version: z.literal(3),
  org_id: z.string(),
  documents: z.number().check(z.int(), z.nonnegative()),
  slabs: z.array(
    z.object({
      embedder_id: z.string(),
      dimensions: z.number().check(z.int(), z.positive()),
      size: z.number().check(z.int(), z.nonnegative()),
      graph: z.nullable(graphDescriptor),
    }),
  ),
  terms: z.array(z.string()),
  /** Postings of all terms, dead ones (of deleted chunks) included. */
  postings: z.number().check(z.int(), z.nonnegative()),
  keys_bytes: z.number().check(z.int(), z.nonnegative()),
  bodies_bytes: z.number().check(z.int(), z.nonnegative()),
});

const headerV4 = z.object({
  ...headerV3.shape,
  version: z.literal(4),
  /** Data source ids by the numbers the data source section gives each document. */
  data_sources: z.array(z.string()),
  headings_bytes: z.number().check(z.int(), z.nonnegative()),
});

export type GraphDescriptor = z.infer<typeof graphDescriptor>;

/** A chunk's identifying fields in the keys section (org_id is the snapshot's). */
type KeyTuple = [
  chunk_id: string,
  data_source_id: string,
  document_id: string,
  document_url: string | null,
  heading_path: string[],
  position: number,
  document_hash: string,
  embedder_id: string,
];

/** Thrown when a format-3 or -4 snapshot cannot be read back; index-files.ts names the file. */
export class SnapshotFormatError extends Error {}

/**
 * A snapshot's sections, copied or encoded now (before the caller's first
 * await: the image views the partition's memory), and a function giving the
 * bytes that precede them once the graphs' checksums are known.
 */
export function encodeSnapshotV3(
  orgId: string,
  image: PartitionImage,
  /** Format 4's keys (instead of format 3's JSON array), and a section after the bodies. */
  v4?: { readonly keys: Buffer; readonly bodiesTail: Uint8Array },
): {
  readonly sections: readonly Uint8Array[];
  readonly head: (
    graphs: readonly (GraphDescriptor | null)[],
    format4?: { readonly magic: Buffer; readonly extra: object },
  ) => Uint8Array[];
} {
  const documents = image.chunks.length;
  const keys =
    v4?.keys ??
    Buffer.from(
      JSON.stringify(image.chunks.map((chunk) => (chunk ? keyTuple(orgId, chunk) : null))),
      'utf8',
    );
  const { bodies, offsets } = encodeBodies(image.chunks);
  const postingCounts = new Int32Array(image.postings.length);
  let postingCount = 0;
  image.postings.forEach(({ docs }, term) => {
    postingCounts[term] = docs.length;
    postingCount += docs.length;
  });
  const postingDocs = new Int32Array(postingCount);
  const postingFrequencies = new Int32Array(postingCount);
  let at = 0;
  for (const { docs, frequencies } of image.postings) {
    postingDocs.set(docs, at);
    postingFrequencies.set(frequencies, at);
    at += docs.length;
  }
  const sections: Uint8Array[] = [
    copyBytes(image.lengths),
    offsets,
    copyBytes(image.documentFrequencies),
    bytesOf(postingCounts),
  ];
  for (const slab of image.slabs) {
    // Vectors still in the old snapshot's file are read now, for this write alone (not kept).
    sections.push(
      slab.vectors instanceof Float32Array
        ? copyBytes(slab.vectors)
        : bytesOf(slab.vectors.readAll()),
      copyBytes(slab.docs),
    );
  }
  sections.push(bytesOf(postingDocs), bytesOf(postingFrequencies), keys, bodies);
  if (v4) sections.push(v4.bodiesTail);
  const slabs = image.slabs.map((slab) => ({
    embedder_id: slab.embedderId,
    dimensions: slab.dimensions,
    size: slab.docs.length,
  }));
  const terms = [...image.terms];

  const head = (
    graphs: readonly (GraphDescriptor | null)[],
    format4?: { readonly magic: Buffer; readonly extra: object },
  ) => {
    const header = Buffer.from(
      JSON.stringify({
        ...({
          version: 3,
          org_id: orgId,
          documents,
          slabs: slabs.map((slab, number) => ({ ...slab, graph: graphs[number] ?? null })),
          terms,
          postings: postingCount,
          keys_bytes: keys.length,
          bodies_bytes: bodies.length,
        } satisfies z.infer<typeof headerV3>),
        ...format4?.extra,
      }),
      'utf8',
    );
    const magic = format4?.magic ?? MAGIC_V3;
    const length = Buffer.alloc(4);
    length.writeUInt32LE(header.length);
    const padding = Buffer.alloc((8 - ((magic.length + 4 + header.length) % 8)) % 8);
    return [magic, length, header, padding];
  };
  return { sections, head };
}

/**
 * A format-4 snapshot's sections (see MAGIC_V4), as encodeSnapshotV3 gives
 * format 3's: copied or encoded now, and the bytes before them once the
 * graphs' checksums are known.
 */
export function encodeSnapshotV4(
  orgId: string,
  image: PartitionImage,
): {
  readonly sections: readonly Uint8Array[];
  readonly head: (graphs: readonly (GraphDescriptor | null)[]) => Uint8Array[];
} {
  const documents = image.chunks.length;
  // Data sources numbered in order of first appearance; each chunk's tuple on its own.
  const dataSourceNumbers = new Map<string, number>();
  const dataSourceOf = new Int32Array(documents).fill(-1);
  const keyOffsets = new Float64Array(documents + 1);
  const tuples: string[] = [];
  const headings: [number, string[]][] = [];
  let keysBytes = 0;
  image.chunks.forEach((chunk, doc) => {
    keyOffsets[doc] = keysBytes;
    if (!chunk) return;
    let number = dataSourceNumbers.get(chunk.data_source_id);
    if (number === undefined) {
      number = dataSourceNumbers.size;
      dataSourceNumbers.set(chunk.data_source_id, number);
    }
    dataSourceOf[doc] = number;
    const tuple = JSON.stringify(keyTuple(orgId, chunk));
    tuples.push(tuple);
    keysBytes += Buffer.byteLength(tuple);
    if (chunk.heading_path.length > 0) headings.push([doc, [...chunk.heading_path]]);
  });
  keyOffsets[documents] = keysBytes;
  const keys = Buffer.from(tuples.join(''), 'utf8');
  const headingsBytes = Buffer.from(JSON.stringify(headings), 'utf8');
  const v3 = encodeSnapshotV3(orgId, image, { keys, bodiesTail: headingsBytes });
  // Format 3's sections with the two columns after the body offsets (its second section).
  const sections = [
    ...v3.sections.slice(0, 2),
    bytesOf(keyOffsets),
    bytesOf(dataSourceOf),
    ...v3.sections.slice(2),
  ];
  const head = (graphs: readonly (GraphDescriptor | null)[]) =>
    v3.head(graphs, {
      magic: MAGIC_V4,
      extra: {
        version: 4,
        data_sources: [...dataSourceNumbers.keys()],
        headings_bytes: headingsBytes.length,
      },
    });
  return { sections, head };
}

function keyTuple(orgId: string, chunk: StoredChunk): KeyTuple {
  if (chunk.org_id !== orgId) {
    throw new Error(`Internal: chunk ${chunk.chunk_id} of ${chunk.org_id} in ${orgId}'s partition`);
  }
  return [
    chunk.chunk_id,
    chunk.data_source_id,
    chunk.document_id,
    chunk.document_url,
    [...chunk.heading_path],
    chunk.position,
    chunk.document_hash,
    chunk.embedder_id,
  ];
}

/** Titles and texts back to back, and per document where its title and its text start (then the end). */
function encodeBodies(chunks: PartitionImage['chunks']): { bodies: Buffer; offsets: Uint8Array } {
  let size = 0;
  for (const chunk of chunks) {
    if (!chunk) continue;
    size +=
      chunk instanceof SnapshotChunk
        ? chunk.bodyLength
        : Buffer.byteLength(chunk.document_title) + Buffer.byteLength(chunk.text);
  }
  const bodies = Buffer.allocUnsafe(size);
  const offsets = new Float64Array(2 * chunks.length + 1);
  let at = 0;
  chunks.forEach((chunk, doc) => {
    offsets[2 * doc] = at;
    if (chunk instanceof SnapshotChunk) {
      // One read of title and text together when they are still in the old snapshot's file.
      offsets[2 * doc + 1] = at + chunk.titleLength;
      at += chunk.bodyBytes().copy(bodies, at);
    } else if (chunk) {
      at += bodies.write(chunk.document_title, at, 'utf8');
      offsets[2 * doc + 1] = at;
      at += bodies.write(chunk.text, at, 'utf8');
    } else {
      offsets[2 * doc + 1] = at;
    }
  });
  offsets[2 * chunks.length] = at;
  return { bodies, offsets: bytesOf(offsets) };
}

/** A copy of a typed array's bytes (the array may change once the caller awaits). */
function copyBytes(values: Int32Array | Float32Array): Buffer {
  return Buffer.from(bytesOf(values));
}

/** A typed array's bytes, not copied (for arrays made here, which nothing else changes). */
function bytesOf(values: Int32Array | Float32Array | Float64Array): Uint8Array {
  return new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
}

/**
 * Reads a format-3 or format-4 snapshot in place from `file` (whose first
 * bytes the caller has checked are MAGIC_V3 or MAGIC_V4, `version`): the
 * partition's image, and each slab's graph as the snapshot names it. Only the
 * small per-document and per-term sections are copied now (and format 3's
 * keys, decoded into a chunk each); vectors, postings, bodies and format 4's
 * keys stay in the file and are read when a search needs them (positional-file.ts),
 * each checked then as the whole file used to be at load: a damaged one is
 * refused with the file's name, never served.
 */
export function readSnapshotV3(
  file: PositionalFile,
  orgId: string,
  version: 3 | 4 = 3,
): { image: LoadedImage; graphs: (GraphDescriptor | null)[] } {
  try {
    return readSections(file, orgId, version);
  } catch (error) {
    if (error instanceof TruncatedFileError) throw new SnapshotFormatError('truncated');
    throw error;
  }
}

function readSections(
  file: PositionalFile,
  orgId: string,
  version: 3 | 4,
): { image: LoadedImage; graphs: (GraphDescriptor | null)[] } {
  const fileSize = file.size;
  let offset = MAGIC_V3.length;
  const headerLength = file.read(offset, 4).readUInt32LE(0);
  offset += 4;
  if (offset + headerLength > fileSize) throw new SnapshotFormatError('truncated');
  let header: Omit<z.infer<typeof headerV3>, 'version'> &
    Partial<Omit<z.infer<typeof headerV4>, 'version'>>;
  try {
    const json: unknown = JSON.parse(file.read(offset, headerLength).toString('utf8'));
    header = version === 4 ? headerV4.parse(json) : headerV3.parse(json);
  } catch (error) {
    throw new SnapshotFormatError('unreadable header', { cause: error });
  }
  if (header.org_id !== orgId)
    throw new SnapshotFormatError('header does not match its organization');
  offset += headerLength;
  offset += (8 - (offset % 8)) % 8;
  const { documents } = header;
  const expected =
    offset +
    4 * documents +
    8 * (2 * documents + 1) +
    8 * header.terms.length +
    header.slabs.reduce((sum, slab) => sum + 4 * slab.size * (slab.dimensions + 1), 0) +
    8 * header.postings +
    header.keys_bytes +
    header.bodies_bytes +
    (version === 4 ? 8 * (documents + 1) + 4 * documents + (header.headings_bytes ?? 0) : 0);
  if (fileSize !== expected) throw new SnapshotFormatError('sections have the wrong length');

  const section = <T extends Int32Array | Float32Array | Float64Array>(values: T) => {
    file.readInto(new Uint8Array(values.buffer), offset);
    offset += values.byteLength;
    return values;
  };
  const lengths = section(new Int32Array(documents));
  const offsets = section(new Float64Array(2 * documents + 1));
  const keyOffsets = version === 4 ? section(new Float64Array(documents + 1)) : null;
  const dataSourceOf = version === 4 ? section(new Int32Array(documents)) : null;
  const documentFrequencies = section(new Int32Array(header.terms.length));
  const postingCounts = section(new Int32Array(header.terms.length));
  const slabs: PartitionImage['slabs'][number][] = [];
  for (const slab of header.slabs) {
    const vectors = new FileVectors(file, offset, slab.size, slab.dimensions);
    offset += 4 * slab.size * slab.dimensions;
    const docs = section(new Int32Array(slab.size));
    if (docs.some((doc) => doc < 0 || doc >= documents)) {
      throw new SnapshotFormatError('a vector of no chunk');
    }
    slabs.push({
      embedderId: slab.embedder_id,
      dimensions: slab.dimensions,
      vectors,
      docs,
      saveGraph: null,
    });
  }
  const postings = termPostings(file, postingCounts, offset, header.postings, documents);
  offset += 8 * header.postings;
  const keysAt = offset;
  offset += header.keys_bytes;
  const bodies = new FileBodies(file, offset);
  offset += header.bodies_bytes;
  checkBodyOffsets(offsets, documents, header.bodies_bytes);
  const chunks =
    keyOffsets && dataSourceOf
      ? new FileChunkTable(file, orgId, keysAt, keyOffsets, dataSourceOf, bodies, offsets, {
          dataSources: header.data_sources ?? [],
          keysBytes: header.keys_bytes,
          headings: readHeadings(file, offset, header.headings_bytes ?? 0, documents),
        })
      : decodeChunks(orgId, file.read(keysAt, header.keys_bytes), bodies, offsets, documents);
  return {
    image: {
      chunks,
      lengths,
      slabs,
      terms: header.terms,
      documentFrequencies,
      postings,
    },
    graphs: header.slabs.map((slab) => slab.graph),
  };
}

/** A slab's vectors section, read where it is. */
class FileVectors implements StoredVectors {
  constructor(
    readonly file: PositionalFile,
    readonly at: number,
    readonly rows: number,
    readonly dimensions: number,
  ) {}

  readRows(from: number, target: Float32Array): void {
    if (from < 0 || from * this.dimensions + target.length > this.rows * this.dimensions) {
      throw new RangeError(`Internal: rows ${from}+ of a slab of ${this.rows}`);
    }
    readChecked(this.file, bytesOf(target), this.at + 4 * from * this.dimensions);
  }

  readAll(): Float32Array {
    const all = new Float32Array(this.rows * this.dimensions);
    this.readRows(0, all);
    return all;
  }
}

/** The bodies section (titles and texts), read where it is. */
class FileBodies implements StoredBodies {
  constructor(
    readonly file: PositionalFile,
    readonly at: number,
  ) {}

  bytes(start: number, end: number): Buffer {
    const bytes = Buffer.allocUnsafe(end - start);
    readChecked(this.file, bytes, this.at + start);
    return bytes;
  }

  text(start: number, end: number): string {
    return this.bytes(start, end).toString('utf8');
  }
}

/**
 * Each term's postings, read from the file (and checked) when asked for:
 * `docs` and `frequencies` read again at each access, so their reader keeps
 * them. The counts are checked now against the documents and the section.
 */
function termPostings(
  file: PositionalFile,
  counts: Int32Array,
  at: number,
  total: number,
  documents: number,
): PartitionImage['postings'] {
  const postings: PartitionImage['postings'][number][] = new Array(counts.length);
  const frequenciesAt = at + 4 * total;
  let start = 0;
  for (let term = 0; term < counts.length; term += 1) {
    const count = counts[term] as number;
    if (count < 0 || count > documents || start + count > total) {
      throw new SnapshotFormatError('postings do not match their terms');
    }
    const from = start;
    postings[term] = {
      get docs() {
        const docs = new Int32Array(count);
        readChecked(file, bytesOf(docs), at + 4 * from);
        for (let i = 0; i < count; i += 1) {
          if (!((docs[i] as number) >= 0 && (docs[i] as number) < documents)) {
            throw new IndexFileCorruptError(file.path, 'a posting of no document');
          }
        }
        return docs;
      },
      get frequencies() {
        const frequencies = new Int32Array(count);
        readChecked(file, bytesOf(frequencies), frequenciesAt + 4 * from);
        for (let i = 0; i < count; i += 1) {
          if ((frequencies[i] as number) < 1) {
            throw new IndexFileCorruptError(file.path, 'a posting of no occurrence');
          }
        }
        return frequencies;
      },
    };
    start += count;
  }
  if (start !== total) throw new SnapshotFormatError('postings do not match their terms');
  return postings;
}

/** A positioned read that names the file when it finds it shorter than it was. */
function readChecked(file: PositionalFile, target: Uint8Array, position: number): void {
  try {
    file.readInto(target, position);
  } catch (error) {
    if (error instanceof TruncatedFileError) {
      throw new IndexFileCorruptError(file.path, 'truncated since it was loaded');
    }
    throw error;
  }
}

function decodeChunks(
  orgId: string,
  keys: Buffer,
  bodies: StoredBodies,
  offsets: Float64Array,
  documents: number,
): (StoredChunk | null)[] {
  let tuples: unknown;
  try {
    tuples = JSON.parse(keys.toString('utf8'));
  } catch (error) {
    throw new SnapshotFormatError('unreadable keys', { cause: error });
  }
  if (!Array.isArray(tuples) || tuples.length !== documents) {
    throw new SnapshotFormatError('keys do not match the documents');
  }
  // Checked by hand, not with a schema: 100k tuples, and this is the start's hot path.
  return tuples.map((tuple: unknown, doc) => {
    if (tuple === null) return null;
    if (!isKeyTuple(tuple))
      throw new SnapshotFormatError(`the keys of document ${doc} are unreadable`);
    return chunkOf(orgId, tuple, bodies, offsets, doc);
  });
}

/** The body offsets start at 0, never decrease, and end at the section's end. */
function checkBodyOffsets(offsets: Float64Array, documents: number, bodiesBytes: number): void {
  if (offsets[0] !== 0 || offsets[2 * documents] !== bodiesBytes) {
    throw new SnapshotFormatError('bodies do not match their offsets');
  }
  for (let i = 1; i < offsets.length; i += 1) {
    // Also refuses NaN: every comparison with it is false.
    if (!((offsets[i] as number) >= (offsets[i - 1] as number))) {
      throw new SnapshotFormatError('bodies do not match their offsets');
    }
  }
}

function chunkOf(
  orgId: string,
  tuple: KeyTuple,
  bodies: StoredBodies,
  offsets: Float64Array,
  doc: number,
): SnapshotChunk {
  const [chunkId, dataSourceId, documentId, url, headingPath, position, hash, embedderId] = tuple;
  return new SnapshotChunk(
    chunkId,
    orgId,
    dataSourceId,
    documentId,
    url,
    headingPath,
    position,
    hash,
    embedderId,
    bodies,
    offsets[2 * doc] as number,
    offsets[2 * doc + 1] as number,
    offsets[2 * doc + 2] as number,
  );
}

/** Format 4's headings section: [document, heading path] pairs, checked now (it is small). */
function readHeadings(
  file: PositionalFile,
  at: number,
  bytes: number,
  documents: number,
): Map<number, readonly string[]> {
  let pairs: unknown;
  try {
    pairs = JSON.parse(file.read(at, bytes).toString('utf8'));
  } catch (error) {
    throw new SnapshotFormatError('unreadable headings', { cause: error });
  }
  const headings = new Map<number, readonly string[]>();
  if (!Array.isArray(pairs)) throw new SnapshotFormatError('unreadable headings');
  for (const pair of pairs) {
    if (
      !Array.isArray(pair) ||
      pair.length !== 2 ||
      !Number.isInteger(pair[0]) ||
      pair[0] < 0 ||
      pair[0] >= documents ||
      !Array.isArray(pair[1]) ||
      !pair[1].every((heading: unknown) => typeof heading === 'string')
    ) {
      throw new SnapshotFormatError('unreadable headings');
    }
    headings.set(pair[0], pair[1]);
  }
  return headings;
}

/**
 * Format 4's chunks, left in the file: the columns are checked now against
 * each other (a hole has no tuple and no data source, every chunk both);
 * a tuple is read, checked and decoded when its chunk is asked for, and a
 * damaged one is refused with the file's name, never served.
 */
class FileChunkTable implements StoredChunkTable {
  readonly count: number;
  readonly dataSources: readonly string[];
  readonly headings: ReadonlyMap<number, readonly string[]>;

  constructor(
    readonly file: PositionalFile,
    readonly orgId: string,
    readonly keysAt: number,
    readonly keyOffsets: Float64Array,
    readonly dataSourceOf: Int32Array,
    readonly bodies: StoredBodies,
    readonly bodyOffsets: Float64Array,
    sections: {
      readonly dataSources: readonly string[];
      readonly keysBytes: number;
      readonly headings: ReadonlyMap<number, readonly string[]>;
    },
  ) {
    this.count = dataSourceOf.length;
    this.dataSources = sections.dataSources;
    this.headings = sections.headings;
    if (keyOffsets[0] !== 0 || keyOffsets[this.count] !== sections.keysBytes) {
      throw new SnapshotFormatError('keys do not match their offsets');
    }
    const sources = this.dataSources.length;
    for (let doc = 0; doc < this.count; doc += 1) {
      const length = (keyOffsets[doc + 1] as number) - (keyOffsets[doc] as number);
      const source = dataSourceOf[doc] as number;
      // Also refuses NaN offsets: every comparison with NaN is false.
      const hole = source === -1 && length === 0;
      if (!hole && !(source >= 0 && source < sources && length > 0)) {
        throw new SnapshotFormatError('keys do not match the documents');
      }
    }
  }

  chunk(doc: number): StoredChunk {
    const start = this.keyOffsets[doc] as number;
    const bytes = Buffer.allocUnsafe((this.keyOffsets[doc + 1] as number) - start);
    readChecked(this.file, bytes, this.keysAt + start);
    return this.#decode(bytes.toString('utf8'), doc);
  }

  all(): (StoredChunk | null)[] {
    const end = this.keyOffsets[this.count] as number;
    const keys = Buffer.allocUnsafe(end);
    readChecked(this.file, keys, this.keysAt);
    const chunks: (StoredChunk | null)[] = new Array(this.count);
    for (let doc = 0; doc < this.count; doc += 1) {
      const start = this.keyOffsets[doc] as number;
      const stop = this.keyOffsets[doc + 1] as number;
      chunks[doc] = start === stop ? null : this.#decode(keys.toString('utf8', start, stop), doc);
    }
    return chunks;
  }

  #decode(json: string, doc: number): StoredChunk {
    let tuple: unknown;
    try {
      tuple = JSON.parse(json);
    } catch {
      tuple = undefined;
    }
    // Its data source must be the one the start counted it under: else the filters were wrong.
    if (!isKeyTuple(tuple) || tuple[1] !== this.dataSources[this.dataSourceOf[doc] as number]) {
      throw new IndexFileCorruptError(this.file.path, `the keys of document ${doc} are unreadable`);
    }
    return chunkOf(this.orgId, tuple, this.bodies, this.bodyOffsets, doc);
  }
}

function isKeyTuple(value: unknown): value is KeyTuple {
  return (
    Array.isArray(value) &&
    value.length === 8 &&
    typeof value[0] === 'string' &&
    typeof value[1] === 'string' &&
    typeof value[2] === 'string' &&
    (value[3] === null || typeof value[3] === 'string') &&
    Array.isArray(value[4]) &&
    value[4].every((heading: unknown) => typeof heading === 'string') &&
    typeof value[5] === 'number' &&
    typeof value[6] === 'string' &&
    typeof value[7] === 'string'
  );
}
