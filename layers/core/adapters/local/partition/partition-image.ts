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
  readonly postings: readonly { readonly docs: Int32Array; readonly frequencies: Int32Array }[];
}

/** One embedder's vectors as a snapshot keeps them. */
export interface SlabImage {
  readonly embedderId: string;
  readonly dimensions: number;
  /** size × dimensions, slot order. */
  readonly vectors: Float32Array;
  /** Slot → document number. */
  readonly docs: Int32Array;
  /** Saves the slab's graph (covering every vector) to a path, when it has one. */
  readonly saveGraph: ((path: string) => number) | null;
}

/** A slab's graph as a snapshot names it: loads it, or says why not. */
export type GraphLoader = (slab: number, dimensions: number) => AnnGraph | undefined;
