import { TopK } from '../top-k';

/** One query term as a search reads it: its postings, weight, and the most one posting can add. */
export interface QueryTermPostings {
  readonly docs: Int32Array;
  readonly frequencies: Int32Array;
  readonly size: number;
  /** The query's occurrences (and expansion weight) of the term times its idf. */
  readonly weight: number;
  /** An upper bound of what one posting adds to a score (weight × the term's largest tf factor). */
  readonly bound: number;
}

/** What the pruned search shares with the exhaustive one. */
export interface PrunedSearchContext {
  /** Per document, BM25's length factor (the denominator less the frequency). */
  readonly normalization: Float64Array;
  /** The score accumulator: all zeros before and after. */
  readonly scores: Float64Array;
  /** Scratch room for as many document numbers as there are documents. */
  readonly touched: Int32Array;
  /** Document numbers, holes included (the accumulator's used length). */
  readonly documents: number;
  readonly wanted: (doc: number) => boolean;
}

/**
 * BM25's best `k` with a top-k threshold (MaxScore's idea, term at a time):
 * the rarest terms are scored first, and once the k-th best score so far
 * (a lower bound of the final k-th best, as scores only grow) beats the most
 * the remaining common terms could add together, no chunk outside those
 * already scored can reach the top k. The common terms' long postings are
 * then not read: each remaining candidate is looked up in them (galloping
 * search, postings are sorted by document), and candidates that cannot reach
 * the threshold even with every remaining term are dropped first.
 *
 * When the threshold never gets there, every term is read in full, as the
 * exhaustive search does, and only the chunks at or above the k-th best
 * score remain candidates.
 *
 * Exact: the result is the exhaustive search's, scores to the last bit, as
 * the few candidates left are scored again from zero, term after term in
 * query order (`terms` order), with the exhaustive search's arithmetic (the
 * margins of 1e-9 above cover the rounding of sums made in another order).
 * `extraCandidates` are documents scored by something else afterwards (the
 * headings field): they are kept as candidates whatever their text scores.
 *
 * Returns the candidates, sorted, with their text scores in `scores` (the
 * caller adds the headings and collects them, which resets the scores); null
 * for fewer than two terms (nothing to gain; the accumulator is untouched).
 */
export function prunedCandidates(
  terms: readonly QueryTermPostings[],
  k: number,
  context: PrunedSearchContext,
  extraCandidates: readonly number[],
): Int32Array | null {
  if (terms.length < 2 || k < 1) return null;
  const { normalization, scores, touched, wanted } = context;
  // Rarest (highest bound) first: their postings are short, and they set the threshold.
  const order = terms
    .map((_, at) => at)
    .sort(
      (a, b) =>
        (terms[b] as QueryTermPostings).bound - (terms[a] as QueryTermPostings).bound ||
        (terms[a] as QueryTermPostings).size - (terms[b] as QueryTermPostings).size,
    );
  let remainingBound = 0;
  let remainingPostings = 0;
  for (const term of terms) {
    remainingBound += term.bound;
    remainingPostings += term.size;
  }
  let touchedCount = 0;
  let readBound = 0;
  let threshold = Number.NEGATIVE_INFINITY;
  let read = 0;
  // Listing the chunks scored pays while they are few; past an eighth of all, the terms are read
  // as the exhaustive search reads them and the candidates found by one pass over every chunk.
  let tracking = true;
  while (read < order.length) {
    const term = terms[order[read] as number] as QueryTermPostings;
    if (tracking) {
      touchedCount = accumulateTracked(term, normalization, scores, touched, touchedCount);
      tracking = touchedCount <= context.documents / 8;
    } else {
      accumulateBm25(term, normalization, scores);
    }
    read += 1;
    remainingBound -= term.bound;
    readBound += term.bound;
    remainingPostings -= term.size;
    if (read === order.length) {
      remainingBound = 0;
      if (tracking) threshold = kthBest(touched, touchedCount, scores, wanted, k);
      break;
    }
    // No chunk has more than the bounds of the terms read so far: the threshold cannot beat the rest
    // yet; and looking the candidates up in the rest must cost less than reading it.
    if (!tracking || remainingBound >= readBound || touchedCount * 4 > remainingPostings) continue;
    threshold = kthBest(touched, touchedCount, scores, wanted, k);
    // A margin for rounding: the bound and the threshold are sums in another order than the final one.
    if (remainingBound < threshold * (1 - 1e-9)) break;
  }
  let candidates: Int32Array;
  if (tracking) {
    // Candidates: wanted chunks that could still reach the threshold, and every extra one.
    const floor = threshold * (1 - 1e-9) - remainingBound;
    let kept = 0;
    for (let i = 0; i < touchedCount; i += 1) {
      const doc = touched[i] as number;
      const score = scores[doc] as number;
      if (score >= floor && wanted(doc)) {
        touched[kept] = doc;
        kept += 1;
      } else {
        scores[doc] = 0;
      }
    }
    candidates = unique(touched.subarray(0, kept).sort());
  } else {
    candidates = atOrAboveKthBest(scores, context.documents, wanted, k, touched);
  }
  // The remaining terms, most weight first, each looked up for the candidates left; after each,
  // a candidate that cannot reach the threshold even with all the rest is dropped (MaxScore).
  for (let step = read; step < order.length; step += 1) {
    const term = terms[order[step] as number] as QueryTermPostings;
    addToCandidates(term, normalization, scores, candidates);
    remainingBound -= term.bound;
    threshold = Math.max(threshold, kthBest(candidates, candidates.length, scores, wanted, k));
    const floor = threshold * (1 - 1e-9) - remainingBound;
    let kept = 0;
    for (let i = 0; i < candidates.length; i += 1) {
      const doc = candidates[i] as number;
      if ((scores[doc] as number) >= floor) {
        candidates[kept] = doc;
        kept += 1;
      } else {
        scores[doc] = 0;
      }
    }
    candidates = candidates.subarray(0, kept);
  }
  // The few left are scored again from zero in query order, so their scores are the exhaustive
  // search's to the last bit (the sums above ran in another order).
  const all = new Int32Array(candidates.length + extraCandidates.length);
  all.set(candidates);
  all.set(extraCandidates, candidates.length);
  for (const doc of all) scores[doc] = 0;
  const final = unique(all.sort());
  for (const term of terms) addToCandidates(term, normalization, scores, final);
  return final;
}

/**
 * Adds one term's BM25 contribution to `scores` for every chunk of its
 * postings: bm25TermScore with the length factor looked up, the same
 * operations in the same order, so the same score as the exhaustive search
 * (which uses this loop too). A function of its own so V8 optimises this loop alone.
 */
export function accumulateBm25(
  term: QueryTermPostings,
  normalization: Float64Array,
  scores: Float64Array,
): void {
  const { docs, frequencies, size, weight } = term;
  for (let i = 0; i < size; i += 1) {
    const doc = docs[i] as number;
    const frequency = frequencies[i] as number;
    scores[doc] =
      (scores[doc] as number) + (weight * frequency) / (frequency + (normalization[doc] as number));
  }
}

/**
 * The wanted documents below `documents` scoring at least the k-th best of
 * them (less the rounding margin), in order, written into `room`; every
 * score is reset to 0. Two passes over all documents, in order.
 */
function atOrAboveKthBest(
  scores: Float64Array,
  documents: number,
  wanted: (doc: number) => boolean,
  k: number,
  room: Int32Array,
): Int32Array {
  const best = new TopK(k);
  let threshold = best.threshold;
  for (let doc = 0; doc < documents; doc += 1) {
    const score = scores[doc] as number;
    if (score > 0 && score > threshold && wanted(doc)) {
      best.offer(score, doc);
      threshold = best.threshold;
    }
  }
  const floor = threshold * (1 - 1e-9);
  let kept = 0;
  for (let doc = 0; doc < documents; doc += 1) {
    const score = scores[doc] as number;
    if (score > 0 && score >= floor && wanted(doc)) {
      room[kept] = doc;
      kept += 1;
    }
  }
  scores.fill(0, 0, documents);
  return room.subarray(0, kept);
}

/** Adds the term's contribution to every document of its postings; lists documents scored the first time. */
function accumulateTracked(
  term: QueryTermPostings,
  normalization: Float64Array,
  scores: Float64Array,
  touched: Int32Array,
  count: number,
): number {
  const { docs, frequencies, size, weight } = term;
  let touchedCount = count;
  for (let i = 0; i < size; i += 1) {
    const doc = docs[i] as number;
    const frequency = frequencies[i] as number;
    const before = scores[doc] as number;
    if (before === 0) {
      touched[touchedCount] = doc;
      touchedCount += 1;
    }
    scores[doc] = before + (weight * frequency) / (frequency + (normalization[doc] as number));
  }
  return touchedCount;
}

/** The k-th best score among the wanted documents listed (−∞ when fewer than k). */
function kthBest(
  docs: Int32Array,
  count: number,
  scores: Float64Array,
  wanted: (doc: number) => boolean,
  k: number,
): number {
  const best = new TopK(k);
  let threshold = best.threshold;
  for (let i = 0; i < count; i += 1) {
    const doc = docs[i] as number;
    const score = scores[doc] as number;
    if (score > threshold && wanted(doc)) {
      best.offer(score, doc);
      threshold = best.threshold;
    }
  }
  return threshold;
}

/** A sorted array without its repeats (in place; a view of its start). */
function unique(sorted: Int32Array): Int32Array {
  let kept = 0;
  for (let i = 0; i < sorted.length; i += 1) {
    if (i === 0 || sorted[i] !== sorted[i - 1]) {
      sorted[kept] = sorted[i] as number;
      kept += 1;
    }
  }
  return sorted.subarray(0, kept);
}

/**
 * Adds the term's contribution to each candidate that its postings hold,
 * found by galloping search (both are sorted), with the exhaustive search's
 * arithmetic.
 */
function addToCandidates(
  term: QueryTermPostings,
  normalization: Float64Array,
  scores: Float64Array,
  candidates: Int32Array,
): void {
  const { docs, frequencies, size, weight } = term;
  let at = 0;
  for (let c = 0; c < candidates.length && at < size; c += 1) {
    const doc = candidates[c] as number;
    if ((docs[at] as number) < doc) {
      // Gallop: double the step until a posting at or past the candidate, then bisect.
      let low = at + 1;
      let step = 1;
      let high = low;
      while (high < size && (docs[high] as number) < doc) {
        low = high + 1;
        step *= 2;
        high = low + step;
      }
      if (high > size) high = size;
      while (low < high) {
        const middle = (low + high) >>> 1;
        if ((docs[middle] as number) < doc) low = middle + 1;
        else high = middle;
      }
      at = low;
      if (at >= size) break;
    }
    if ((docs[at] as number) === doc) {
      const frequency = frequencies[at] as number;
      scores[doc] =
        (scores[doc] as number) +
        (weight * frequency) / (frequency + (normalization[doc] as number));
      at += 1;
    }
  }
}
