/**
 * The headings field of the embedded index's BM25 (issue 10 item 2): a
 * chunk's heading path, scored on its own statistics and added to the score
 * of title and text with the weight {@link HEADING_BOOST}, as OpenSearch's
 * `bool.should` of the two `match` queries does (its `heading_path.text`
 * field, boosted). Lucene's field statistics: the document count and the
 * average length are of the chunks that have a heading.
 */
import {
  type Bm25Parameters,
  bm25Idf,
  bm25TermScore,
  HEADING_BOOST,
} from '../../domain/retrieval/bm25';
import { analyze } from '../../domain/retrieval/text-analysis';

/** What the headings field holds for a chunk: its heading path, one heading a line. */
export function headingText(headingPath: readonly string[]): string {
  return headingPath.join('\n');
}

interface Postings {
  readonly docs: number[];
  readonly frequencies: number[];
  documentFrequency: number;
}

/**
 * Postings of the headings field by document number (the partition's).
 * Removal keeps dead postings (searches skip documents the partition no
 * longer has) until {@link HeadingField.renumber}.
 */
export class HeadingField {
  readonly #postings = new Map<string, Postings>();
  /** Document number → terms in its headings (0 for none). */
  #lengthOf: number[] = [];
  #documents = 0;
  #totalLength = 0;

  add(doc: number, headingPath: readonly string[]): void {
    const terms = headingPath.length === 0 ? [] : analyze(headingText(headingPath));
    this.#lengthOf[doc] = terms.length;
    if (terms.length === 0) return;
    const frequencies = new Map<string, number>();
    for (const term of terms) frequencies.set(term, (frequencies.get(term) ?? 0) + 1);
    for (const [term, frequency] of frequencies) {
      let postings = this.#postings.get(term);
      if (!postings) {
        postings = { docs: [], frequencies: [], documentFrequency: 0 };
        this.#postings.set(term, postings);
      }
      postings.docs.push(doc);
      postings.frequencies.push(frequency);
      postings.documentFrequency += 1;
    }
    this.#documents += 1;
    this.#totalLength += terms.length;
  }

  remove(doc: number, headingPath: readonly string[]): void {
    const length = this.#lengthOf[doc] ?? 0;
    this.#lengthOf[doc] = 0;
    if (length === 0) return;
    for (const term of new Set(analyze(headingText(headingPath)))) {
      const postings = this.#postings.get(term);
      if (postings) postings.documentFrequency -= 1;
    }
    this.#documents -= 1;
    this.#totalLength -= length;
  }

  /** The live, allowed documents whose headings hold a query term (one may be listed more than once). */
  documentsWith(queryTerms: ReadonlyMap<string, number>, live: (doc: number) => boolean): number[] {
    const found: number[] = [];
    if (this.#documents === 0) return found;
    for (const term of queryTerms.keys()) {
      const postings = this.#postings.get(term);
      if (!postings || postings.documentFrequency === 0) continue;
      for (const doc of postings.docs) if (live(doc)) found.push(doc);
    }
    return found;
  }

  /**
   * Adds `HEADING_BOOST` × BM25 of the query terms in each live, allowed
   * document's headings to `scores`; returns the documents it scored (one may
   * be listed more than once).
   */
  scoreInto(
    queryTerms: ReadonlyMap<string, number>,
    live: (doc: number) => boolean,
    scores: Float64Array,
    parameters: Bm25Parameters,
  ): number[] {
    const scored: number[] = [];
    if (this.#documents === 0) return scored;
    const averageLength = this.#totalLength / this.#documents;
    for (const [term, occurrences] of queryTerms) {
      const postings = this.#postings.get(term);
      if (!postings || postings.documentFrequency === 0) continue;
      const idf =
        HEADING_BOOST * occurrences * bm25Idf(postings.documentFrequency, this.#documents);
      for (let i = 0; i < postings.docs.length; i += 1) {
        const doc = postings.docs[i] as number;
        if (!live(doc)) continue;
        scored.push(doc);
        scores[doc] =
          (scores[doc] ?? 0) +
          bm25TermScore(
            idf,
            postings.frequencies[i] as number,
            this.#lengthOf[doc] ?? 0,
            averageLength,
            parameters,
          );
      }
    }
    return scored;
  }

  /** Applies the partition's compaction: `renumbered[old]` is the new number, −1 for a dead document. */
  renumber(renumbered: Int32Array): void {
    const lengthOf: number[] = [];
    this.#lengthOf.forEach((length, doc) => {
      const now = renumbered[doc] ?? -1;
      if (now >= 0) lengthOf[now] = length;
    });
    this.#lengthOf = lengthOf;
    for (const [term, postings] of this.#postings) {
      if (postings.documentFrequency === 0) {
        this.#postings.delete(term);
        continue;
      }
      const docs: number[] = [];
      const frequencies: number[] = [];
      postings.docs.forEach((doc, i) => {
        const now = renumbered[doc] ?? -1;
        if (now < 0) return;
        docs.push(now);
        frequencies.push(postings.frequencies[i] as number);
      });
      this.#postings.set(term, {
        docs,
        frequencies,
        documentFrequency: postings.documentFrequency,
      });
    }
  }
}
