import * as z from 'zod/mini';
import type { IndexedChunk } from '../../ports/retrieval-index.port';

/** A chunk as the embedded index keeps it: the vector lives in its embedder's slab. */
export type StoredChunk = Omit<IndexedChunk, 'embedding'>;

/** A StoredChunk as the log and formats 1 and 2 write it (JSON). */
export const storedChunkSchema = z.object({
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

/** A snapshot's titles and texts, back to back: in memory, or read from its file. */
export interface StoredBodies {
  bytes(start: number, end: number): Buffer;
  text(start: number, end: number): string;
}

/**
 * A chunk loaded from a snapshot (format 3 or 4): its identifying fields are
 * read at load (format 4: when first asked for), its title and text stay
 * UTF-8 in the snapshot's body section and
 * are decoded when read. Decoding 100k chunks' text (130 MB) at every start
 * took seconds, and a search reads the text of its few results only.
 *
 * Title and text are getters, so a spread (`{ ...chunk }`) loses them:
 * copy a chunk with `plainChunk`.
 */
export class SnapshotChunk implements StoredChunk {
  constructor(
    readonly chunk_id: string,
    readonly org_id: string,
    readonly data_source_id: string,
    readonly document_id: string,
    readonly document_url: string | null,
    readonly heading_path: readonly string[],
    readonly position: number,
    readonly document_hash: string,
    readonly embedder_id: string,
    /** The body section, and where this chunk's title, then text, start and end in it. */
    private readonly bodies: StoredBodies,
    private readonly titleStart: number,
    private readonly textStart: number,
    private readonly textEnd: number,
  ) {}

  get document_title(): string {
    return this.bodies.text(this.titleStart, this.textStart);
  }

  get text(): string {
    return this.bodies.text(this.textStart, this.textEnd);
  }

  /**
   * A copy for a search result whose title and text are decoded on first
   * read: a hybrid search returns 200 candidates of which an answer reads
   * about ten, and decoding all of them was a quarter of a k-NN search. They
   * are own enumerable getters, so a spread or JSON.stringify still copies
   * the text (a class's getters would be skipped).
   */
  resultCopy<Extra extends object>(extra: Extra): StoredChunk & Extra {
    const { bodies, titleStart, textStart, textEnd } = this;
    let title: string | undefined;
    let text: string | undefined;
    return {
      chunk_id: this.chunk_id,
      org_id: this.org_id,
      data_source_id: this.data_source_id,
      document_id: this.document_id,
      get document_title() {
        title ??= bodies.text(titleStart, textStart);
        return title;
      },
      document_url: this.document_url,
      heading_path: this.heading_path,
      get text() {
        text ??= bodies.text(textStart, textEnd);
        return text;
      },
      position: this.position,
      document_hash: this.document_hash,
      embedder_id: this.embedder_id,
      ...extra,
    };
  }

  /** Bytes of title and text together, as stored. */
  get bodyLength(): number {
    return this.textEnd - this.titleStart;
  }

  /** Bytes of the title alone. */
  get titleLength(): number {
    return this.textStart - this.titleStart;
  }

  /** Title then text as stored, without decoding them (a snapshot written again copies these bytes). */
  bodyBytes(): Buffer {
    return this.bodies.bytes(this.titleStart, this.textEnd);
  }
}

/**
 * A plain copy of a chunk, whatever it is (SnapshotChunk's title and text
 * included), that the caller cannot change afterwards.
 */
export function plainChunk(chunk: StoredChunk): StoredChunk {
  return {
    chunk_id: chunk.chunk_id,
    org_id: chunk.org_id,
    data_source_id: chunk.data_source_id,
    document_id: chunk.document_id,
    document_title: chunk.document_title,
    document_url: chunk.document_url,
    heading_path: [...chunk.heading_path],
    text: chunk.text,
    position: chunk.position,
    document_hash: chunk.document_hash,
    embedder_id: chunk.embedder_id,
  };
}
