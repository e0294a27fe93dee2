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
  /** Each distinct term's number in `dictionary`, ascending, so `occurrences` finds one by binary search. */
  readonly termIds: Uint32Array;
  /** `counts[i]` is how often the term numbered `termIds[i]` occurs. */
  readonly counts: Uint32Array;
  /** The numbering `termIds` are in (a new one starts when the old grows too large). */
  readonly dictionary: ReadonlyMap<string, number>;
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

/**
 * How many distinct terms one numbering holds before a new one starts
 * (and the remembered counts, numbered in the old one, are dropped): a
 * bound on memory for a process that sees endless new words.
 */
const DICTIONARY_LIMIT = 500_000;

/** Terms are numbered so a passage's are compared as integers, much faster than as strings. */
let dictionary = new Map<string, number>();

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

/**
 * How often `term` occurs in `passage` (0 when it does not): a binary
 * search, so a query's few terms are looked up without walking the
 * passage's hundred or so.
 */
export function occurrences(passage: PassageTerms, term: string): number {
  const id = passage.dictionary.get(term);
  return id === undefined ? 0 : occurrencesOfNumber(passage, id);
}

/** How often the term numbered `id` in `passage.dictionary` occurs in `passage` (0 when it does not). */
export function occurrencesOfNumber(passage: PassageTerms, id: number): number {
  const { termIds, counts } = passage;
  let low = 0;
  let high = termIds.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const found = termIds[middle] ?? 0;
    if (found === id) return counts[middle] ?? 0;
    if (found < id) low = middle + 1;
    else high = middle - 1;
  }
  return 0;
}

/** The passage's distinct terms, in the order of their numbers (for tests and diagnostics). */
export function termsOf(passage: PassageTerms): string[] {
  const byId = new Map<number, string>();
  for (const [term, id] of passage.dictionary) byId.set(id, term);
  return Array.from(passage.termIds, (id) => byId.get(id) ?? '');
}

/** How many chunks' counts are remembered now (for tests and diagnostics). */
export function rememberedPassageCount(): number {
  return remembered.size;
}

/** Forgets every remembered count (tests start from an empty table). */
export function forgetPassageTerms(): void {
  remembered.clear();
  dictionary = new Map();
}

function countTerms(title: string, text: string): PassageTerms {
  const all = analyze(`${title}\n${text}`);
  const tally = new Map<string, number>();
  for (const term of all) tally.set(term, (tally.get(term) ?? 0) + 1);
  if (dictionary.size + tally.size > DICTIONARY_LIMIT) {
    // Passages already handed out keep the numbering they were counted in.
    dictionary = new Map();
    remembered.clear();
  }
  const numbered = [...tally].map(([term, count]) => ({ id: numberOf(term), count }));
  numbered.sort((a, b) => a.id - b.id);
  return {
    termIds: Uint32Array.from(numbered, (entry) => entry.id),
    counts: Uint32Array.from(numbered, (entry) => entry.count),
    dictionary,
    length: all.length,
  };
}

function numberOf(term: string): number {
  const known = dictionary.get(term);
  if (known !== undefined) return known;
  const id = dictionary.size;
  dictionary.set(term, id);
  return id;
}
