import type { AnnGraph } from '../ann-graph';
import type { StoredChunk } from '../snapshot-chunk';

/**
 * Everything a partition holds, by document number, for its snapshot
 * (index-files.ts): holes are null, postings keep dead entries, exactly as in
 * memory, so a graph keyed by document numbers stays valid when loaded.
 */
export interface PartitionImage {
  readonly chunks: readonly (StoredChunk | null)[];
  readonly lengths: Int32Array;
  readonly slabs: readonly SlabImage[];
  readonly terms: readonly string[];
  readonly documentFrequencies: Int32Array;
  /**
   * Per term, in the order of `terms`. A loaded snapshot's are read from its
   * file when first asked for (each property read reads them again: keep them).
   */
  readonly postings: readonly { readonly docs: Int32Array; readonly frequencies: Int32Array }[];
}

/**
 * A loaded snapshot's chunks left in its file (format 4): what a start needs
 * of them as columns, and each chunk decoded from the file when a search
 * returns it. A start then makes no object per chunk: at a million chunks,
 * making them was most of a restart and of the heap a collection walks.
 */
export interface StoredChunkTable {
  /** Document numbers, holes included. */
  readonly count: number;
  /** Document number → its data source's number (an index of `dataSources`), −1 for a hole. */
  readonly dataSourceOf: Int32Array;
  readonly dataSources: readonly string[];
  /** The heading paths of the documents that have one (the headings field is rebuilt from them). */
  readonly headings: ReadonlyMap<number, readonly string[]>;
  /** Document `doc`'s chunk, read and checked now (it must not be a hole). */
  chunk(doc: number): StoredChunk;
  /** Every chunk, null for holes, from one read of the section. */
  all(): (StoredChunk | null)[];
}

/** A partition image as a snapshot is read back: its chunks in memory, or left in the file. */
export type LoadedImage = Omit<PartitionImage, 'chunks'> & {
  readonly chunks: readonly (StoredChunk | null)[] | StoredChunkTable;
};

/** A loaded image's chunks as an array (null for holes), read from the file when they are still there. */
export function chunksInMemory(chunks: LoadedImage['chunks']): readonly (StoredChunk | null)[] {
  return Array.isArray(chunks) ? chunks : (chunks as StoredChunkTable).all();
}

/** A slab's vectors in memory, read whole from the file when they are still there. */
export function vectorsInMemory(vectors: Float32Array | StoredVectors): Float32Array {
  return vectors instanceof Float32Array ? vectors : vectors.readAll();
}

/**
 * A slab's vectors left in its snapshot's file (positional-file.ts), read a
 * row or a block of rows at a time: a loaded partition copies none of them
 * until it changes the slab.
 */
export interface StoredVectors {
  readonly rows: number;
  readonly dimensions: number;
  /** Rows `from` to `from + target.length / dimensions − 1`, into `target`. */
  readRows(from: number, target: Float32Array): void;
  /** Every row, in memory of its own. */
  readAll(): Float32Array;
}

/** One embedder's vectors as a snapshot keeps them. */
export interface SlabImage {
  readonly embedderId: string;
  readonly dimensions: number;
  /** size × dimensions, slot order: in memory, or still in the snapshot's file. */
  readonly vectors: Float32Array | StoredVectors;
  /** Slot → document number. */
  readonly docs: Int32Array;
  /** Saves the slab's graph (covering every vector) to a path, when it has one. */
  readonly saveGraph: ((path: string) => number) | null;
}

/** A slab's graph as a snapshot names it: loads it, or says why not. */
export type GraphLoader = (slab: number, dimensions: number) => AnnGraph | undefined;
