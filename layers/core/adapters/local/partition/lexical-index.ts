import { type Bm25Parameters, bm25Idf } from '../../../domain/retrieval/bm25';
import { analyze } from '../../../domain/retrieval/text-analysis';
import type { IndexedChunk, WeightedTerm } from '../../../ports/retrieval-index.port';
import { HeadingField } from '../heading-field';
import { TopK } from '../top-k';
import { IntList } from './int-list';
import type { PartitionImage } from './partition-image';
import { accumulateBm25, prunedCandidates, type QueryTermPostings } from './pruned-bm25';

/** What BM25 reads of a chunk (issue 3: "over text and title"), as Anserini's flat BEIR documents. */
export function bm25Text(chunk: Pick<IndexedChunk, 'document_title' | 'text'>): string {
  return `${chunk.document_title}\n${chunk.text}`;
}

/** A term's postings as a snapshot image holds them. */
type TermPostings = PartitionImage['postings'][number];

/** One term's postings: (document number, term frequency) pairs, and how many live documents hold it. */
interface Postings {
  docs: IntList;
  frequencies: IntList;
  documentFrequency: number;
  /**
   * Postings still in the snapshot's file (docs and frequencies are empty
   * meanwhile): read and kept at the first search or change that needs them,
   * so a loaded index holds the postings of the terms it was asked about.
   */
  stored: TermPostings | null;
  /** The largest tf factor of these postings under the length factors it was computed for. */
  largest?: { readonly normalization: Float64Array; readonly factor: number };
}

/** The term's postings in memory, read from the snapshot's file first when they are still there. */
function loaded(postings: Postings): Postings {
  if (postings.stored) {
    const { docs, frequencies } = postings.stored;
    postings.docs = IntList.over(docs);
    postings.frequencies = IntList.over(frequencies);
    postings.stored = null;
  }
  return postings;
}

/** What the lexical index reads of a chunk. */
type LexicalChunk = Pick<IndexedChunk, 'document_title' | 'text' | 'heading_path'>;

/**
 * A partition's BM25 inverted index over title and text, by document number,
 * with the heading paths' field beside it. Postings keep the entries
 * of deleted chunks (searches skip them) until the partition compacts; the
 * term statistics change at once.
 */
export class LexicalIndex {
  readonly #postings = new Map<string, Postings>();
  /** The heading paths' BM25 field, added to title and text's with its boost. */
  readonly #headings = new HeadingField();
  #lengthOf = new IntList();
  #totalLength = 0;
  /** Per-document score accumulator, reused between searches. */
  #scores = new Float64Array(0);
  /** Room for the document numbers a search scored, reused between searches. */
  #touched = new Int32Array(0);
  /** BM25 length factors by document, valid while the average length and the parameters stay. */
  #normalization:
    | { averageLength: number; k1: number; b: number; values: Float64Array }
    | undefined;

  /** Indexes the newest document number `doc`. */
  add(doc: number, chunk: LexicalChunk): void {
    const terms = analyze(bm25Text(chunk));
    const frequencies = new Map<string, number>();
    for (const term of terms) frequencies.set(term, (frequencies.get(term) ?? 0) + 1);
    for (const [term, frequency] of frequencies) {
      let postings = this.#postings.get(term);
      if (!postings) {
        postings = {
          docs: new IntList(),
          frequencies: new IntList(),
          documentFrequency: 0,
          stored: null,
        };
        this.#postings.set(term, postings);
      }
      loaded(postings);
      postings.docs.push(doc);
      postings.frequencies.push(frequency);
      postings.documentFrequency += 1;
    }
    this.#lengthOf.push(terms.length);
    this.#totalLength += terms.length;
    this.#headings.add(doc, chunk.heading_path);
  }

  /** Takes a deleted chunk out of the statistics (its postings stay until compaction). */
  remove(doc: number, chunk: LexicalChunk): void {
    for (const term of new Set(analyze(bm25Text(chunk)))) {
      const postings = this.#postings.get(term);
      if (postings) postings.documentFrequency -= 1;
    }
    this.#totalLength -= this.#lengthOf.values[doc] ?? 0;
    this.#headings.remove(doc, chunk.heading_path);
  }

  /**
   * The best `k` documents by BM25 of `query` over title and text, plus the
   * boosted BM25 of their headings, among those `wanted` accepts.
   * Each expansion word's terms add its weight to the term's (a query word
   * weighs 1). `live` is the number of live documents, `count` the number of
   * document numbers (holes included).
   */
  search(
    query: string,
    expansion: readonly WeightedTerm[],
    k: number,
    parameters: Bm25Parameters,
    documents: { readonly live: number; readonly count: number },
    wanted: (doc: number) => boolean,
  ): TopK | null {
    const queryTerms = new Map<string, number>();
    // A term repeated in the query counts once per occurrence, as in Lucene's boolean query of term clauses.
    for (const term of analyze(query)) queryTerms.set(term, (queryTerms.get(term) ?? 0) + 1);
    for (const { word, weight } of expansion) {
      if (!(weight > 0)) continue;
      for (const term of analyze(word)) queryTerms.set(term, (queryTerms.get(term) ?? 0) + weight);
    }
    if (queryTerms.size === 0) return null;

    if (this.#scores.length < documents.count) {
      this.#scores = new Float64Array(Math.max(documents.count, this.#scores.length * 2));
    }
    const scores = this.#scores;
    const normalization = this.#lengthNormalization(parameters, documents);
    if (this.#touched.length < documents.count) this.#touched = new Int32Array(scores.length);
    // The terms as the search reads them, in query order (the order scores are summed in).
    const terms: QueryTermPostings[] = [];
    for (const [term, occurrences] of queryTerms) {
      const postings = this.#postings.get(term);
      if (!postings || postings.documentFrequency === 0) continue;
      const weight = occurrences * bm25Idf(postings.documentFrequency, documents.live);
      const { docs, frequencies } = loaded(postings);
      terms.push({
        docs: docs.values,
        frequencies: frequencies.values,
        size: docs.size,
        weight,
        bound: weight * largestTfFactor(postings, normalization) * (1 + 1e-9),
      });
    }
    const best = new TopK(k);
    const candidates = prunedCandidates(
      terms,
      k,
      { normalization, scores, touched: this.#touched, documents: documents.count, wanted },
      this.#headings.documentsWith(queryTerms, wanted),
    );
    if (candidates) {
      this.#headings.scoreInto(queryTerms, wanted, scores, parameters);
      collectTop(candidates, candidates.length, scores, wanted, best);
      return best;
    }
    // The accumulation is the whole cost of a search (a common term has a posting in most chunks),
    // so it checks nothing: a dead or filtered-out chunk gets a score too, and is left out below.
    let postingsRead = 0;
    for (const term of terms) {
      accumulateBm25(term, normalization, scores);
      postingsRead += term.size;
    }
    const headingDocs = this.#headings.scoreInto(queryTerms, wanted, scores, parameters);
    // Every chunk with a score is found again, then its score reset: by walking the postings just
    // read when they are few, by one pass over all chunks when they are many (cheaper than keeping a list).
    if (postingsRead < documents.count / 8) {
      for (const term of terms) collectTop(term.docs, term.size, scores, wanted, best);
      collectTop(Int32Array.from(headingDocs), headingDocs.length, scores, wanted, best);
    } else {
      collectTop(null, documents.count, scores, wanted, best);
    }
    return best;
  }

  /** The index as a snapshot keeps it: views of live memory. */
  image(): Pick<PartitionImage, 'lengths' | 'terms' | 'documentFrequencies' | 'postings'> {
    const terms: string[] = [];
    const documentFrequencies = new Int32Array(this.#postings.size);
    const postings: { docs: Int32Array; frequencies: Int32Array }[] = [];
    for (const [term, entry] of this.#postings) {
      documentFrequencies[terms.length] = entry.documentFrequency;
      terms.push(term);
      // Postings still in the old snapshot's file are read by the write, not kept here.
      postings.push(
        entry.stored ?? { docs: entry.docs.view(), frequencies: entry.frequencies.view() },
      );
    }
    return { lengths: this.#lengthOf.view(), terms, documentFrequencies, postings };
  }

  /**
   * The index a snapshot's image describes: `live` tells its documents from
   * its holes, `headings` gives the heading paths of those that have one.
   */
  static fromImage(
    image: Pick<PartitionImage, 'lengths' | 'terms' | 'documentFrequencies' | 'postings'>,
    live: (doc: number) => boolean,
    headings: ReadonlyMap<number, readonly string[]>,
  ): LexicalIndex {
    const index = new LexicalIndex();
    index.#lengthOf = IntList.over(image.lengths);
    for (let doc = 0; doc < image.lengths.length; doc += 1) {
      if (live(doc)) index.#totalLength += image.lengths[doc] ?? 0;
    }
    // The headings field is not in the snapshot: heading paths are short, so it is rebuilt from them.
    for (const [doc, headingPath] of [...headings].sort(([a], [b]) => a - b)) {
      index.#headings.add(doc, headingPath);
    }
    image.terms.forEach((term, i) => {
      // Not read here: a snapshot's postings are read from its file when a search first needs them.
      index.#postings.set(term, {
        docs: new IntList(0),
        frequencies: new IntList(0),
        documentFrequency: image.documentFrequencies[i] ?? 0,
        stored: image.postings[i] ?? null,
      });
    });
    return index;
  }

  /**
   * Compaction: document `kept[i]` becomes document `i` (`renumbered` maps
   * every old number to its new one, −1 for holes); dead postings go.
   */
  renumber(renumbered: Int32Array, kept: readonly number[]): void {
    const lengthOf = new IntList(Math.max(4, kept.length));
    for (const doc of kept) lengthOf.push(this.#lengthOf.values[doc] ?? 0);
    for (const [term, postings] of this.#postings) {
      if (postings.documentFrequency === 0) {
        this.#postings.delete(term);
        continue;
      }
      loaded(postings);
      const docs = new IntList(postings.documentFrequency);
      const frequencies = new IntList(postings.documentFrequency);
      for (let i = 0; i < postings.docs.size; i += 1) {
        const doc = renumbered[postings.docs.values[i] ?? 0] ?? -1;
        if (doc < 0) continue;
        docs.push(doc);
        frequencies.push(postings.frequencies.values[i] ?? 0);
      }
      this.#postings.set(term, {
        docs,
        frequencies,
        documentFrequency: postings.documentFrequency,
        stored: null,
      });
    }
    this.#headings.renumber(renumbered);
    this.#lengthOf = lengthOf;
    this.#scores = new Float64Array(0);
    this.#normalization = undefined;
  }

  /**
   * Per document, BM25's length factor `k1 · (1 − b + b · dl / avgdl)`
   * (bm25TermScore's denominator less the frequency), computed once per
   * change of the partition rather than once per posting of every search.
   */
  #lengthNormalization(
    parameters: Bm25Parameters,
    documents: { readonly live: number; readonly count: number },
  ): Float64Array {
    const { k1, b } = parameters;
    const averageLength = this.#totalLength / documents.live;
    const cached = this.#normalization;
    if (
      cached &&
      cached.averageLength === averageLength &&
      cached.k1 === k1 &&
      cached.b === b &&
      cached.values.length >= documents.count
    ) {
      return cached.values;
    }
    const values = new Float64Array(documents.count);
    const lengthOf = this.#lengthOf.values;
    for (let doc = 0; doc < values.length; doc += 1) {
      const lengthRatio = averageLength > 0 ? (lengthOf[doc] as number) / averageLength : 1;
      values[doc] = k1 * (1 - b + b * lengthRatio);
    }
    this.#normalization = { averageLength, k1, b, values };
    return values;
  }
}

/**
 * The largest `tf / (tf + length factor)` of the term's postings: what one
 * posting can add at most, per unit of weight (below 1). Kept with the
 * postings until the length factors change (an insert or a deletion).
 */
function largestTfFactor(postings: Postings, normalization: Float64Array): number {
  if (postings.largest?.normalization === normalization) return postings.largest.factor;
  const docs = postings.docs.values;
  const frequencies = postings.frequencies.values;
  let factor = 0;
  for (let i = 0; i < postings.docs.size; i += 1) {
    const frequency = frequencies[i] as number;
    const value = frequency / (frequency + (normalization[docs[i] as number] as number));
    if (value > factor) factor = value;
  }
  postings.largest = { normalization, factor };
  return factor;
}

/**
 * Offers each document of `docs` (every document below `size` when null)
 * whose score `wanted` accepts to `best`, and resets its score to 0. A score
 * is read into a local and compared with the threshold before any call, so
 * the loop allocates nothing (a double passed to a call that is not inlined
 * is boxed: 100k of them a search made the collector run every few searches).
 */
function collectTop(
  docs: Int32Array | null,
  size: number,
  scores: Float64Array,
  wanted: (doc: number) => boolean,
  best: TopK,
): void {
  let threshold = best.threshold;
  for (let i = 0; i < size; i += 1) {
    const doc = docs === null ? i : (docs[i] as number);
    const score = scores[doc] as number;
    if (score === 0) continue;
    scores[doc] = 0;
    if (score >= threshold && wanted(doc)) {
      best.offer(score, doc);
      threshold = best.threshold;
    }
  }
}
