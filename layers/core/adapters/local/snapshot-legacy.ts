import { endianness } from 'node:os';
import * as z from 'zod/mini';
import type { PartitionImage, StoredChunk } from './partition/index-partition';
import { vectorsInMemory } from './partition/partition-image';
import { decodePostings, encodePostings } from './postings-codec';
import { plainChunk, storedChunkSchema } from './snapshot-chunk';
import { SnapshotFormatError } from './snapshot-format';

/**
 * Snapshot formats a start still reads, to write them again in format 4
 * (snapshot-format.ts) at once:
 *
 * - format 1 (before P102): JSON header with every chunk, then float32 vectors;
 * - format 2: JSON header with every chunk, then binary sections:
 *   lengths, document frequencies, per slab vectors and slot documents,
 *   postings; graphs named with their SHA-256.
 *
 * The encoders are here for the tests that check such files still load.
 */

export const MAGIC_V1 = Buffer.from('AQSIDX01', 'ascii');
export const MAGIC_V2 = Buffer.from('AQSIDX02', 'ascii');

const headerV1 = z.object({
  version: z.literal(1),
  org_id: z.string(),
  chunks: z.array(storedChunkSchema),
  /** Vector length of each chunk, in order; the vectors follow the header as float32. */
  dimensions: z.array(z.number().check(z.int(), z.positive())),
});

const graphV2 = z.object({
  file: z.string(),
  size: z.number().check(z.int(), z.nonnegative()),
  sha256: z.string(),
});

const headerV2 = z.object({
  version: z.literal(2),
  org_id: z.string(),
  /** By document number; null for a hole a deleted chunk left. */
  chunks: z.array(z.nullable(storedChunkSchema)),
  slabs: z.array(
    z.object({
      embedder_id: z.string(),
      dimensions: z.number().check(z.int(), z.positive()),
      size: z.number().check(z.int(), z.nonnegative()),
      graph: z.nullable(graphV2),
    }),
  ),
  terms: z.array(z.string()),
  postings_bytes: z.number().check(z.int(), z.nonnegative()),
});

export type GraphDescriptorV2 = z.infer<typeof graphV2>;

function readHeader<T>(file: Buffer, magic: Buffer, schema: z.ZodMiniType<T>) {
  if (file.length < magic.length + 4) throw new SnapshotFormatError('truncated');
  const headerLength = file.readUInt32LE(magic.length);
  const headerStart = magic.length + 4;
  if (file.length < headerStart + headerLength) throw new SnapshotFormatError('truncated header');
  try {
    return {
      header: schema.parse(
        JSON.parse(file.toString('utf8', headerStart, headerStart + headerLength)),
      ),
      end: headerStart + headerLength,
    };
  } catch (error) {
    throw new SnapshotFormatError('unreadable header', { cause: error });
  }
}

/** A format-1 snapshot's chunks and their vectors. */
export function readSnapshotV1(
  file: Buffer,
  orgId: string,
): { chunk: StoredChunk; embedding: Float32Array }[] {
  const { header, end } = readHeader(file, MAGIC_V1, headerV1);
  if (header.chunks.length !== header.dimensions.length || header.org_id !== orgId) {
    throw new SnapshotFormatError('header does not match its organization');
  }
  const offset = end + ((4 - (end % 4)) % 4);
  const total = header.dimensions.reduce((sum, count) => sum + count, 0);
  if (file.length !== offset + total * 4) {
    throw new SnapshotFormatError('vector data has the wrong length');
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

/** A format-2 snapshot's image, and each slab's graph as it names it. */
export function readSnapshotV2(
  file: Buffer,
  orgId: string,
): { image: PartitionImage; graphs: (GraphDescriptorV2 | null)[] } {
  if (endianness() !== 'LE') {
    throw new SnapshotFormatError('snapshots are little-endian; this machine is not');
  }
  const { header, end } = readHeader(file, MAGIC_V2, headerV2);
  if (header.org_id !== orgId)
    throw new SnapshotFormatError('header does not match its organization');
  const documents = header.chunks.length;
  const expected =
    4 * documents +
    4 * header.terms.length +
    header.slabs.reduce((sum, slab) => sum + 4 * slab.size * (slab.dimensions + 1), 0) +
    header.postings_bytes;
  let offset = end + ((8 - (end % 8)) % 8);
  if (file.length !== offset + expected)
    throw new SnapshotFormatError('sections have the wrong length');
  const int32s = (count: number) => {
    const values = new Int32Array(count);
    new Uint8Array(values.buffer).set(file.subarray(offset, offset + count * 4));
    offset += count * 4;
    return values;
  };
  const lengths = int32s(documents);
  const documentFrequencies = int32s(header.terms.length);
  const slabs = header.slabs.map((slab) => {
    const vectors = new Float32Array(slab.size * slab.dimensions);
    new Uint8Array(vectors.buffer).set(file.subarray(offset, offset + vectors.byteLength));
    offset += vectors.byteLength;
    const docs = int32s(slab.size);
    if (docs.some((doc) => doc < 0 || doc >= documents)) {
      throw new SnapshotFormatError('a vector of no chunk');
    }
    return {
      embedderId: slab.embedder_id,
      dimensions: slab.dimensions,
      vectors,
      docs,
      saveGraph: null,
    };
  });
  let postings: PartitionImage['postings'];
  try {
    postings = decodePostings(file.subarray(offset), header.terms.length, documents);
  } catch (error) {
    throw new SnapshotFormatError('unreadable postings', { cause: error });
  }
  return {
    image: {
      chunks: header.chunks,
      lengths,
      slabs,
      terms: header.terms,
      documentFrequencies,
      postings,
    },
    graphs: header.slabs.map((slab) => slab.graph),
  };
}

/** A format-1 snapshot's bytes (tests only). */
export function encodeSnapshotV1(
  orgId: string,
  entries: Iterable<{ readonly chunk: StoredChunk; readonly embedding: Float32Array }>,
): Uint8Array[] {
  const chunks: StoredChunk[] = [];
  const vectors: Float32Array[] = [];
  for (const { chunk, embedding } of entries) {
    chunks.push(chunk);
    vectors.push(embedding);
  }
  const header = Buffer.from(
    JSON.stringify({
      version: 1,
      org_id: orgId,
      chunks,
      dimensions: vectors.map((vector) => vector.length),
    }),
    'utf8',
  );
  const length = Buffer.alloc(4);
  length.writeUInt32LE(header.length);
  const padding = Buffer.alloc((4 - ((MAGIC_V1.length + 4 + header.length) % 4)) % 4);
  const data = Buffer.alloc(vectors.reduce((sum, vector) => sum + vector.length, 0) * 4);
  let offset = 0;
  for (const vector of vectors) {
    for (const value of vector) offset = data.writeFloatLE(value, offset);
  }
  return [MAGIC_V1, length, header, padding, data];
}

/** A format-2 snapshot's bytes (tests only); `graphs` as saved beside it. */
export function encodeSnapshotV2(
  orgId: string,
  image: PartitionImage,
  graphs: readonly (GraphDescriptorV2 | null)[],
): Uint8Array[] {
  const postings = encodePostings(image.postings);
  const header = Buffer.from(
    JSON.stringify({
      version: 2,
      org_id: orgId,
      chunks: image.chunks.map((chunk) => (chunk ? plainChunk(chunk) : null)),
      slabs: image.slabs.map((slab, number) => ({
        embedder_id: slab.embedderId,
        dimensions: slab.dimensions,
        size: slab.docs.length,
        graph: graphs[number] ?? null,
      })),
      terms: image.terms,
      postings_bytes: postings.length,
    }),
    'utf8',
  );
  const length = Buffer.alloc(4);
  length.writeUInt32LE(header.length);
  const padding = Buffer.alloc((8 - ((MAGIC_V2.length + 4 + header.length) % 8)) % 8);
  const bytes = (values: Int32Array | Float32Array) =>
    Buffer.from(values.buffer.slice(values.byteOffset, values.byteOffset + values.byteLength));
  const parts: Uint8Array[] = [MAGIC_V2, length, header, padding, bytes(image.lengths)];
  parts.push(bytes(image.documentFrequencies));
  for (const slab of image.slabs)
    parts.push(bytes(vectorsInMemory(slab.vectors)), bytes(slab.docs));
  parts.push(postings);
  return parts;
}
