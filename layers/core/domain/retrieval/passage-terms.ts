/**
 * A passage's index terms and how often each occurs, remembered per chunk.
 * The query-likelihood ranking re-scores the fused candidates from their
 * words on every search, and analysing 100 passages' text (the word pattern,
 * stopwords, stems) costs about 6 ms, as much as the rest of a search on
 * SciFact-sized data. The same chunks come back query after query (a
 * knowledge base's popular pages, a conversation's follow-ups), so their
 * counts are kept once analysed, in a bounded table. Keeping them here
 * rather than in an index keeps both retrieval adapters unchanged and
 * ranking alike.
 */
import { analyze } from './text-analysis';

/** A passage's distinct index terms, each with its number of occurrences, and its length in terms. */
export interface PassageTerms {
  readonly terms: readonly string[];
  /** `counts[i]` is how often `terms[i]` occurs. */
  readonly counts: Uint32Array;
  /** All its index terms, repeats included: the passage length language models divide by. */
  readonly length: number;
}

/** What a passage is read from: the words BM25 reads (title and text). */
export interface PassageSource {
  /** The chunk's id: the key the counts are remembered under (absent: counted afresh each time). */
  readonly chunk_id?: string;
  readonly document_title?: string;
  readonly text?: string;
}

/**
 * How many chunks' counts are remembered: about 1.5 KB each for a
 * 300-token chunk, so at most some 15 MB; enough for the chunks a few
 * hundred searches return, when each returns 100.
 */
export const REMEMBERED_PASSAGES = 10_000;

interface Remembered extends PassageTerms {
  readonly title: string;
  readonly text: string;
}

/** Least recently used first (a Map keeps insertion order; a hit is moved to the end). */
const remembered = new Map<string, Remembered>();

/**
 * The index terms of `source`'s title and text (text-analysis.ts, as BM25
 * reads them), counted. Remembered under the chunk id, and given back only
 * while the title and text are still the ones counted, so an edited chunk
 * is counted again and no other passage's counts are ever returned.
 *
 * @example
 * passageTerms({ chunk_id: 'c1', document_title: 'Glaciers', text: 'Glaciers melt.' });
 * // → { terms: ['glacier', 'melt'], counts: Uint32Array [2, 1], length: 3 }
 */
export function passageTerms(source: PassageSource): PassageTerms {
  const title = source.document_title ?? '';
  const text = source.text ?? '';
  const key = source.chunk_id;
  if (key === undefined) return countTerms(title, text);
  const known = remembered.get(key);
  if (known !== undefined && known.title === title && known.text === text) {
    remembered.delete(key);
    remembered.set(key, known);
    return known;
  }
  const counted = { ...countTerms(title, text), title, text };
  remembered.delete(key);
  if (remembered.size >= REMEMBERED_PASSAGES) {
    const oldest = remembered.keys().next();
    if (oldest.done !== true) remembered.delete(oldest.value);
  }
  remembered.set(key, counted);
  return counted;
}

/** How many chunks' counts are remembered now (for tests and diagnostics). */
export function rememberedPassageCount(): number {
  return remembered.size;
}

/** Forgets every remembered count (tests start from an empty table). */
export function forgetPassageTerms(): void {
  remembered.clear();
}

function countTerms(title: string, text: string): PassageTerms {
  const all = analyze(`${title}\n${text}`);
  const positions = new Map<string, number>();
  const terms: string[] = [];
  const tally: number[] = [];
  for (const term of all) {
    const at = positions.get(term);
    if (at === undefined) {
      positions.set(term, terms.length);
      terms.push(term);
      tally.push(1);
    } else {
      tally[at] = (tally[at] ?? 0) + 1;
    }
  }
  return { terms, counts: Uint32Array.from(tally), length: all.length };
}
