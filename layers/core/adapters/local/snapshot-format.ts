import type { FileHandle } from 'node:fs/promises';
import * as z from 'zod/mini';
import type { PartitionImage, StoredChunk } from './partition/index-partition';
import { SnapshotChunk } from './snapshot-chunk';

/**
 * Snapshot format 3: the partition in sections a start reads straight
 * into the arrays it keeps, each with one positioned read:
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
 * varints took 0.8 s there and reading the arrays takes a copy.
 * Little-endian, as format 2.
 */

export const MAGIC_V3 = Buffer.from('AQSIDX03', 'ascii');

const graphDescriptor = z.object({
  file: z.string(),
  /** Vectors in the graph. */
  size: z.number().check(z.int(), z.nonnegative()),
  /** BLAKE2b-512 of the file: the graph's library trusts what it reads, so it is checked first. */
  blake2b512: z.string(),
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

/** Thrown when a format-3 snapshot cannot be read back; index-files.ts names the file. */
export class SnapshotFormatError extends Error {}

/**
 * A snapshot's sections, copied or encoded now (before the caller's first
 * await: the image views the partition's memory), and a function giving the
 * bytes that precede them once the graphs' checksums are known.
 */
export function encodeSnapshotV3(
  orgId: string,
  image: PartitionImage,
): {
  readonly sections: readonly Uint8Array[];
  readonly head: (graphs: readonly (GraphDescriptor | null)[]) => Uint8Array[];
} {
  const documents = image.chunks.length;
  const keys = Buffer.from(
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
  for (const slab of image.slabs) sections.push(copyBytes(slab.vectors), copyBytes(slab.docs));
  sections.push(bytesOf(postingDocs), bytesOf(postingFrequencies), keys, bodies);
  const slabs = image.slabs.map((slab) => ({
    embedder_id: slab.embedderId,
    dimensions: slab.dimensions,
    size: slab.docs.length,
  }));
  const terms = [...image.terms];

  const head = (graphs: readonly (GraphDescriptor | null)[]) => {
    const header = Buffer.from(
      JSON.stringify({
        version: 3,
        org_id: orgId,
        documents,
        slabs: slabs.map((slab, number) => ({ ...slab, graph: graphs[number] ?? null })),
        terms,
        postings: postingCount,
        keys_bytes: keys.length,
        bodies_bytes: bodies.length,
      } satisfies z.infer<typeof headerV3>),
      'utf8',
    );
    const length = Buffer.alloc(4);
    length.writeUInt32LE(header.length);
    const padding = Buffer.alloc((8 - ((MAGIC_V3.length + 4 + header.length) % 8)) % 8);
    return [MAGIC_V3, length, header, padding];
  };
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
        ? chunk.titleBytes.length + chunk.textBytes.length
        : Buffer.byteLength(chunk.document_title) + Buffer.byteLength(chunk.text);
  }
  const bodies = Buffer.allocUnsafe(size);
  const offsets = new Float64Array(2 * chunks.length + 1);
  let at = 0;
  chunks.forEach((chunk, doc) => {
    offsets[2 * doc] = at;
    if (chunk instanceof SnapshotChunk) {
      at += chunk.titleBytes.copy(bodies, at);
      offsets[2 * doc + 1] = at;
      at += chunk.textBytes.copy(bodies, at);
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
 * Reads a format-3 snapshot from `file` (whose first bytes the caller has
 * checked are MAGIC_V3): the partition's image, and each slab's graph as the
 * snapshot names it.
 */
export async function readSnapshotV3(
  file: FileHandle,
  orgId: string,
): Promise<{ image: PartitionImage; graphs: (GraphDescriptor | null)[] }> {
  const fileSize = (await file.stat()).size;
  let offset = MAGIC_V3.length;
  const headerLength = (await readExactly(file, 4, offset, fileSize)).readUInt32LE(0);
  offset += 4;
  let header: z.infer<typeof headerV3>;
  try {
    header = headerV3.parse(
      JSON.parse((await readExactly(file, headerLength, offset, fileSize)).toString('utf8')),
    );
  } catch (error) {
    if (error instanceof SnapshotFormatError) throw error;
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
    header.bodies_bytes;
  if (fileSize !== expected) throw new SnapshotFormatError('sections have the wrong length');

  const section = async <T extends Int32Array | Float32Array | Float64Array>(values: T) => {
    await readInto(file, new Uint8Array(values.buffer), offset);
    offset += values.byteLength;
    return values;
  };
  const lengths = await section(new Int32Array(documents));
  const offsets = await section(new Float64Array(2 * documents + 1));
  const documentFrequencies = await section(new Int32Array(header.terms.length));
  const postingCounts = await section(new Int32Array(header.terms.length));
  const slabs: PartitionImage['slabs'][number][] = [];
  for (const slab of header.slabs) {
    const vectors = await section(new Float32Array(slab.size * slab.dimensions));
    const docs = await section(new Int32Array(slab.size));
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
  const postingDocs = await section(new Int32Array(header.postings));
  const postingFrequencies = await section(new Int32Array(header.postings));
  const postings = termPostings(postingCounts, postingDocs, postingFrequencies, documents);
  const keys = await readExactly(file, header.keys_bytes, offset, fileSize);
  offset += header.keys_bytes;
  const bodies = await readExactly(file, header.bodies_bytes, offset, fileSize);
  const chunks = decodeChunks(orgId, keys, bodies, offsets, documents);
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

/** Each term's postings, as views of the two arrays that hold them all; refuses any out of range. */
function termPostings(
  counts: Int32Array,
  docs: Int32Array,
  frequencies: Int32Array,
  documents: number,
): PartitionImage['postings'] {
  for (let i = 0; i < docs.length; i += 1) {
    if (!((docs[i] as number) >= 0 && (docs[i] as number) < documents)) {
      throw new SnapshotFormatError('a posting of no document');
    }
    if ((frequencies[i] as number) < 1) throw new SnapshotFormatError('a posting of no occurrence');
  }
  const postings: PartitionImage['postings'][number][] = new Array(counts.length);
  let at = 0;
  for (let term = 0; term < counts.length; term += 1) {
    const count = counts[term] as number;
    if (count < 0 || count > documents || at + count > docs.length) {
      throw new SnapshotFormatError('postings do not match their terms');
    }
    postings[term] = {
      docs: docs.subarray(at, at + count),
      frequencies: frequencies.subarray(at, at + count),
    };
    at += count;
  }
  if (at !== docs.length) throw new SnapshotFormatError('postings do not match their terms');
  return postings;
}

function decodeChunks(
  orgId: string,
  keys: Buffer,
  bodies: Buffer,
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
  if (offsets[0] !== 0 || offsets[2 * documents] !== bodies.length) {
    throw new SnapshotFormatError('bodies do not match their offsets');
  }
  for (let i = 1; i < offsets.length; i += 1) {
    // Also refuses NaN: every comparison with it is false.
    if (!((offsets[i] as number) >= (offsets[i - 1] as number))) {
      throw new SnapshotFormatError('bodies do not match their offsets');
    }
  }
  // Checked by hand, not with a schema: 100k tuples, and this is the start's hot path.
  return tuples.map((tuple: unknown, doc) => {
    if (tuple === null) return null;
    if (!isKeyTuple(tuple))
      throw new SnapshotFormatError(`the keys of document ${doc} are unreadable`);
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
  });
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

/** `length` bytes at `position`, refusing a file that ends first. */
async function readExactly(
  file: FileHandle,
  length: number,
  position: number,
  fileSize: number,
): Promise<Buffer> {
  if (position + length > fileSize) throw new SnapshotFormatError('truncated');
  const bytes = Buffer.allocUnsafe(length);
  await readInto(file, bytes, position);
  return bytes;
}

/** Fills `target` from `position` (a read may return less than asked: Linux stops at 2 GiB). */
async function readInto(file: FileHandle, target: Uint8Array, position: number): Promise<void> {
  let done = 0;
  while (done < target.length) {
    const { bytesRead } = await file.read(target, done, target.length - done, position + done);
    if (bytesRead === 0) throw new SnapshotFormatError('truncated');
    done += bytesRead;
  }
}
