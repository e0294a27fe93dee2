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
