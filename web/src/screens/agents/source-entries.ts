import type { QuotedRange } from '../../format/quoted-parts';

/** What merging needs of a cited source: its chunk, and what the answer quotes of it. */
interface MergeableSource {
  readonly chunk_id: string;
  readonly quoted_ranges?: readonly QuotedRange[];
}

/** One passage an answer cites, however many of its numbers name it. */
export interface SourceEntry<S extends MergeableSource> {
  /** The first number the answer gave the passage: the one the entry is shown by. */
  readonly number: number;
  /** Every number that names the passage, the first one included, in order. */
  readonly numbers: readonly number[];
  /** The first of them, with the quoted parts of all of them. */
  readonly source: S;
}

export interface MergedSources<S extends MergeableSource> {
  /** One entry per passage, in the order of their first numbers. */
  readonly entries: ReadonlyArray<SourceEntry<S>>;
  /** The entry a citation `[n]` opens, for every n of the list. */
  readonly byNumber: ReadonlyMap<number, SourceEntry<S>>;
}

/**
 * An answer's sources (numbered from 1 in list order, as `[n]` cites them)
 * with repeats of one passage merged: the same chunk listed twice is one
 * entry, shown by its first number, and each of its numbers opens it. The
 * passage is the same, but each listing may quote another part of it, so
 * the entry marks all of them.
 *
 * @example mergeSources([a, b, a]).byNumber.get(3)?.number // 1
 */
export function mergeSources<S extends MergeableSource>(sources: readonly S[]): MergedSources<S> {
  const byChunk = new Map<string, { number: number; numbers: number[]; source: S }>();
  const byNumber = new Map<number, SourceEntry<S>>();
  sources.forEach((source, index) => {
    const number = index + 1;
    const seen = byChunk.get(source.chunk_id);
    if (!seen) {
      const entry = { number, numbers: [number], source };
      byChunk.set(source.chunk_id, entry);
      byNumber.set(number, entry);
      return;
    }
    seen.numbers.push(number);
    if (source.quoted_ranges?.length) {
      seen.source = {
        ...seen.source,
        quoted_ranges: [...(seen.source.quoted_ranges ?? []), ...source.quoted_ranges],
      };
    }
    byNumber.set(number, seen);
  });
  return { entries: [...byChunk.values()], byNumber };
}

/** Citation numbers in words: "[3]", "[1] and [3]", "[1], [3] and [5]". */
export function numbersInWords(numbers: readonly number[]): string {
  const cited = numbers.map((number) => `[${number}]`);
  if (cited.length <= 1) return cited[0] ?? '';
  return `${cited.slice(0, -1).join(', ')} and ${cited.at(-1)}`;
}
