/**
 * BM25 postings as a snapshot stores them: every term's postings as unsigned
 * LEB128 varints, per term its count, then per posting the gap to the
 * previous document number and the frequency. Document numbers grow along a
 * posting list, so gaps are small: about 2 bytes a posting instead of 8.
 */

export interface TermPostings {
  readonly docs: Int32Array;
  readonly frequencies: Int32Array;
}

const varintSize = (value: number) =>
  value < 0x80 ? 1 : value < 0x4000 ? 2 : value < 0x200000 ? 3 : value < 0x10000000 ? 4 : 5;

export function encodePostings(postings: readonly TermPostings[]): Buffer {
  let size = 0;
  for (const { docs, frequencies } of postings) {
    size += varintSize(docs.length);
    let previous = 0;
    for (let i = 0; i < docs.length; i += 1) {
      const doc = docs[i] as number;
      size += varintSize(doc - previous) + varintSize(frequencies[i] as number);
      previous = doc;
    }
  }
  const bytes = Buffer.allocUnsafe(size);
  let at = 0;
  const write = (value: number) => {
    let rest = value;
    while (rest >= 0x80) {
      bytes[at] = (rest & 0x7f) | 0x80;
      at += 1;
      rest >>>= 7;
    }
    bytes[at] = rest;
    at += 1;
  };
  for (const { docs, frequencies } of postings) {
    write(docs.length);
    let previous = 0;
    for (let i = 0; i < docs.length; i += 1) {
      const doc = docs[i] as number;
      write(doc - previous);
      write(frequencies[i] as number);
      previous = doc;
    }
  }
  return bytes;
}

/** Thrown for bytes that are not `terms` terms' postings over `documents` documents. */
export class PostingsFormatError extends RangeError {}

/**
 * Decodes `terms` terms' postings. Every term's arrays are views of two
 * arrays shared by all terms (one allocation each, not two per term), sized
 * for the most postings the bytes can hold (each takes at least 2 bytes); the
 * varint reading is inlined (a reader closure made loading 100k chunks'
 * postings take 2 s).
 */
export function decodePostings(
  bytes: Uint8Array,
  terms: number,
  documents: number,
): TermPostings[] {
  const allDocs = new Int32Array(bytes.length >> 1);
  const allFrequencies = new Int32Array(bytes.length >> 1);
  const starts = new Int32Array(terms + 1);
  let at = 0;
  let used = 0;
  const end = bytes.length;
  for (let term = 0; term < terms; term += 1) {
    // The count, then per posting the gap and the frequency: three varints read the same way.
    let count = 0;
    for (let shift = 0; ; shift += 7) {
      if (at >= end) throw new PostingsFormatError('postings end early');
      if (shift > 28) throw new PostingsFormatError('a varint is too long');
      const byte = bytes[at] as number;
      at += 1;
      count += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) break;
    }
    if (count > documents) throw new PostingsFormatError('more postings than documents');
    starts[term] = used;
    let doc = 0;
    for (let i = 0; i < count; i += 1) {
      let gap = 0;
      let shift = 0;
      for (;;) {
        if (at >= end) throw new PostingsFormatError('postings end early');
        const byte = bytes[at] as number;
        at += 1;
        gap |= (byte & 0x7f) << shift;
        if (byte < 0x80) break;
        shift += 7;
        // Gaps are document numbers, below 2^31: four 7-bit groups and three bits of a fifth.
        if (shift > 28) throw new PostingsFormatError('a varint is too long');
      }
      doc += gap;
      if (gap < 0 || doc >= documents) throw new PostingsFormatError('a posting of no document');
      let frequency = 0;
      shift = 0;
      for (;;) {
        if (at >= end) throw new PostingsFormatError('postings end early');
        const byte = bytes[at] as number;
        at += 1;
        frequency |= (byte & 0x7f) << shift;
        if (byte < 0x80) break;
        shift += 7;
        if (shift > 28) throw new PostingsFormatError('a varint is too long');
      }
      if (frequency < 1) throw new PostingsFormatError('a posting of no occurrence');
      allDocs[used] = doc;
      allFrequencies[used] = frequency;
      used += 1;
    }
  }
  starts[terms] = used;
  if (at !== end) throw new PostingsFormatError('bytes after the last posting');
  const postings: TermPostings[] = new Array(terms);
  for (let term = 0; term < terms; term += 1) {
    const from = starts[term] as number;
    const to = starts[term + 1] as number;
    postings[term] = {
      docs: allDocs.subarray(from, to),
      frequencies: allFrequencies.subarray(from, to),
    };
  }
  return postings;
}
