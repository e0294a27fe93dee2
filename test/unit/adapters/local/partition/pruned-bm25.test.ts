import fc from 'fast-check';
import { LexicalIndex } from '../../../../../layers/core/adapters/local/partition/lexical-index';
import {
  prunedCandidates,
  type QueryTermPostings,
} from '../../../../../layers/core/adapters/local/partition/pruned-bm25';
import {
  bm25Idf,
  bm25TermScore,
  DEFAULT_BM25,
  HEADING_BOOST,
} from '../../../../../layers/core/domain/retrieval/bm25';

/** Words by how common they are: the first in nearly every chunk, the last in a few. */
const VOCABULARY = [
  'alpha',
  'bravo',
  'charlie',
  'delta',
  'echo',
  'foxtrot',
  'golf',
  'hotel',
  'india',
];
/** Word i's share of the text, about 1 / (i + 1)²: Zipf-like, as in real text. */
const CUMULATIVE = (() => {
  const weights = VOCABULARY.map((_, rank) => 1 / (rank + 1) ** 2);
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  let running = 0;
  return weights.map((weight) => {
    running += weight / total;
    return running;
  });
})();

/**
 * `count` chunks of 12 words drawn from a seed (fast-check's own numbers
 * lean to the extremes, which would make every word the first or the last).
 */
function chunksOf(seed: number, count: number): string[][] {
  let state = seed % 2147483646 || 1;
  const random = () => {
    state = (state * 16807) % 2147483647;
    return state / 2147483647;
  };
  return Array.from({ length: count }, () =>
    Array.from(
      { length: 12 },
      () => VOCABULARY[CUMULATIVE.findIndex((limit) => random() <= limit)] ?? 'india',
    ),
  );
}

describe('BM25 with a top-k threshold', () => {
  it('ranks and scores as the exhaustive formula, to the last bit, with filters and headings (property)', () => {
    fc.assert(
      fc.property(
        fc.nat(),
        fc.integer({ min: 50, max: 400 }),
        fc.array(fc.constantFrom(...VOCABULARY), { minLength: 2, maxLength: 6 }),
        fc.integer({ min: 1, max: 12 }),
        fc.boolean(),
        (seed, count, queryWords, k, filtered) => {
          // Prepare
          const chunks = chunksOf(seed, count);
          const index = new LexicalIndex();
          const texts = chunks.map((words) => words.join(' '));
          // Every seventh chunk has a heading: one of its own words, common or rare.
          const headingOf = (doc: number) => (doc % 7 === 0 ? [chunks[doc]?.[doc % 12] ?? ''] : []);
          texts.forEach((text, doc) => {
            index.add(doc, { document_title: '', text, heading_path: headingOf(doc) });
          });
          const wanted = (doc: number) => !filtered || doc % 3 === 1;

          // Act
          const found = index.search(
            queryWords.join(' '),
            [],
            k,
            DEFAULT_BM25,
            { live: texts.length, count: texts.length },
            wanted,
          );

          // Assess: the formula, term after term in query order.
          const terms = texts.map((text) => text.split(' '));
          const average = terms.reduce((sum, words) => sum + words.length, 0) / terms.length;
          const occurrences = new Map<string, number>();
          for (const word of queryWords) occurrences.set(word, (occurrences.get(word) ?? 0) + 1);
          const scores = new Array<number>(texts.length).fill(0);
          for (const [word, times] of occurrences) {
            const holding = terms.filter((words) => words.includes(word)).length;
            if (holding === 0) continue;
            const idf = times * bm25Idf(holding, texts.length);
            terms.forEach((words, doc) => {
              const frequency = words.filter((w) => w === word).length;
              if (frequency === 0) return;
              scores[doc] =
                (scores[doc] ?? 0) +
                bm25TermScore(idf, frequency, words.length, average, DEFAULT_BM25);
            });
          }
          // Then the headings field, on its own statistics (the chunks with a heading), boosted.
          const headed = texts.map((_, doc) => doc).filter((doc) => headingOf(doc).length > 0);
          for (const [word, times] of occurrences) {
            const holding = headed.filter((doc) => headingOf(doc)[0] === word);
            if (holding.length === 0) continue;
            const idf = HEADING_BOOST * times * bm25Idf(holding.length, headed.length);
            for (const doc of holding) {
              if (!wanted(doc)) continue;
              scores[doc] = (scores[doc] ?? 0) + bm25TermScore(idf, 1, 1, 1, DEFAULT_BM25);
            }
          }
          const expected = scores
            .map((score, doc) => ({ id: doc, score }))
            .filter(({ id, score }) => score > 0 && wanted(id))
            .sort((a, b) => b.score - a.score || a.id - b.id)
            .slice(0, k);
          expect(found?.drain() ?? []).toEqual(expected);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('stops reading a common term once the rare ones have set a threshold it cannot reach', () => {
    // Prepare: a rare term in chunks 0 and 1, a common one in every chunk but with a small weight.
    const documents = 1_000;
    const normalization = new Float64Array(documents).fill(0.9);
    const rare: QueryTermPostings = {
      docs: Int32Array.from([0, 1]),
      frequencies: Int32Array.from([2, 1]),
      size: 2,
      weight: 6,
      bound: 6,
    };
    const common: QueryTermPostings = {
      docs: Int32Array.from({ length: documents }, (_, doc) => doc),
      frequencies: new Int32Array(documents).fill(1),
      size: documents,
      weight: 0.1,
      bound: 0.1,
    };
    const scores = new Float64Array(documents);

    // Act
    const candidates = prunedCandidates(
      [common, rare],
      1,
      { normalization, scores, touched: new Int32Array(documents), documents, wanted: () => true },
      [],
    );

    // Assess: only chunk 0 can still be first; its score has both terms, in query order.
    expect(Array.from(candidates ?? [])).toEqual([0]);
    expect(scores[0]).toBe(0 + (0.1 * 1) / (1 + 0.9) + (6 * 2) / (2 + 0.9));
    expect(scores.filter((score) => score !== 0)).toHaveLength(1);
  });

  it('reads every term when the threshold never beats the rest, keeping the chunks at the k-th best', () => {
    // Prepare: two terms of equal weight in every chunk, the first twice in chunks 7 and 9.
    const documents = 100;
    const every = (weight: number, twice: readonly number[]): QueryTermPostings => ({
      docs: Int32Array.from({ length: documents }, (_, doc) => doc),
      frequencies: Int32Array.from({ length: documents }, (_, doc) =>
        twice.includes(doc) ? 2 : 1,
      ),
      size: documents,
      weight,
      bound: weight,
    });
    const scores = new Float64Array(documents);

    // Act
    const candidates = prunedCandidates(
      [every(1, [7, 9]), every(1, [])],
      2,
      {
        normalization: new Float64Array(documents).fill(0.9),
        scores,
        touched: new Int32Array(documents),
        documents,
        wanted: () => true,
      },
      [],
    );

    // Assess
    expect(Array.from(candidates ?? [])).toEqual([7, 9]);
    expect(scores.filter((score) => score !== 0)).toHaveLength(2);
  });
});
