import fc from 'fast-check';
import { EmbeddedIndex } from '../../../layers/core/adapters/local/embedded-index';
import { headingText } from '../../../layers/core/adapters/local/heading-field';
import {
  bm25Idf,
  bm25TermScore,
  DEFAULT_BM25,
  HEADING_BOOST,
} from '../../../layers/core/domain/retrieval/bm25';
import { analyze } from '../../../layers/core/domain/retrieval/text-analysis';
import type { IndexedChunk } from '../../../layers/core/ports/retrieval-index.port';

/**
 * The embedded index's BM25 against a plain reference written from the
 * formula (P125: title and text, plus the boosted heading field). The index
 * adds every posting's score without checking whether the chunk is live or
 * allowed and sorts that out afterwards, through one of two paths (the
 * postings it read, or a pass over every chunk when they were many): both
 * paths, deletions and filters are generated here.
 */

const WORDS = ['refund', 'shipping', 'account', 'password', 'invoice', 'delivery', 'warranty'];
const RARE = ['zeppelin', 'quokka', 'xylophone'];

interface Generated {
  readonly title: string;
  readonly text: string;
  readonly headings: string[];
  readonly dataSource: number;
}

const generatedChunk = fc.record({
  title: fc.constantFrom('Help', 'Guide', 'Refund policy', ''),
  text: fc
    .array(
      fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...WORDS) }, fc.constantFrom(...RARE)),
      {
        minLength: 1,
        maxLength: 12,
      },
    )
    .map((words) => words.join(' ')),
  headings: fc.array(fc.constantFrom('Refunds', 'Passwords', 'Quokka care'), { maxLength: 2 }),
  dataSource: fc.integer({ min: 0, max: 2 }),
});

function indexed(generated: Generated, i: number): IndexedChunk {
  return {
    chunk_id: `chk_${i}`,
    org_id: 'org_a',
    data_source_id: `ds_${generated.dataSource}`,
    document_id: `doc_${i}`,
    document_title: generated.title,
    document_url: null,
    heading_path: generated.headings,
    text: generated.text,
    position: 0,
    document_hash: 'h',
    embedder_id: 'test/2',
    embedding: [1, i + 1],
  };
}

/**
 * Adds BM25 of one field over `documents` to `scores` (the heading field
 * counts documents with headings only), term by term in query order as the
 * index does, so the sums are the same to the last bit.
 */
function addFieldScores(
  scores: Map<string, number>,
  documents: readonly { readonly id: string; readonly terms: readonly string[] }[],
  queryTerms: ReadonlyMap<string, number>,
  boost: number,
): void {
  const counted = documents.filter(({ terms }) => terms.length > 0 || boost === 1);
  const averageLength =
    counted.reduce((sum, { terms }) => sum + terms.length, 0) / Math.max(1, counted.length);
  for (const [term, occurrences] of queryTerms) {
    const holding = counted.filter(({ terms }) => terms.includes(term));
    if (holding.length === 0) continue;
    const idf = boost * occurrences * bm25Idf(holding.length, counted.length);
    for (const { id, terms } of holding) {
      const frequency = terms.filter((t) => t === term).length;
      scores.set(
        id,
        (scores.get(id) ?? 0) +
          bm25TermScore(idf, frequency, terms.length, averageLength, DEFAULT_BM25),
      );
    }
  }
}

describe('EmbeddedIndex BM25 against the formula', () => {
  it('scores and ranks as the reference, with deletions and data-source filters (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(generatedChunk, { minLength: 1, maxLength: 60 }),
        fc.array(fc.nat({ max: 59 }), { maxLength: 20 }),
        fc.option(fc.subarray([0, 1, 2]), { nil: undefined }),
        fc.array(fc.constantFrom(...WORDS, ...RARE, 'quokka', 'unknown'), {
          minLength: 1,
          maxLength: 4,
        }),
        fc.integer({ min: 1, max: 15 }),
        async (generated, deletions, dataSources, queryWords, k) => {
          // Prepare
          const index = new EmbeddedIndex();
          const chunks = generated.map(indexed);
          await index.upsert(chunks);
          const deleted = new Set(deletions.filter((i) => i < chunks.length));
          for (const i of deleted)
            await index.deleteDocument('org_a', `ds_${generated[i]?.dataSource}`, `doc_${i}`);
          const query = queryWords.join(' ');

          // Act
          const hits = await index.bm25(
            { orgId: 'org_a', dataSourceIds: dataSources?.map((n) => `ds_${n}`) },
            query,
            k,
          );

          // Assess: statistics over every live chunk; the filter only chooses among them.
          const live = chunks.filter((_, i) => !deleted.has(i));
          const queryTerms = new Map<string, number>();
          for (const term of analyze(query)) queryTerms.set(term, (queryTerms.get(term) ?? 0) + 1);
          const scores = new Map<string, number>();
          addFieldScores(
            scores,
            live.map((chunk) => ({
              id: chunk.chunk_id,
              terms: analyze(`${chunk.document_title}\n${chunk.text}`),
            })),
            queryTerms,
            1,
          );
          addFieldScores(
            scores,
            live.map((chunk) => ({
              id: chunk.chunk_id,
              terms:
                chunk.heading_path.length === 0 ? [] : analyze(headingText(chunk.heading_path)),
            })),
            queryTerms,
            HEADING_BOOST,
          );
          const expected = live
            .filter(
              (chunk) =>
                dataSources === undefined ||
                dataSources.map((n) => `ds_${n}`).includes(chunk.data_source_id),
            )
            .map((chunk, order) => ({
              id: chunk.chunk_id,
              order,
              score: scores.get(chunk.chunk_id) ?? 0,
            }))
            .filter(({ score }) => score > 0)
            .sort((a, b) => b.score - a.score || a.order - b.order)
            .slice(0, k);
          expect(hits.map((hit) => hit.chunk.chunk_id)).toEqual(expected.map(({ id }) => id));
          hits.forEach((hit, i) => {
            expect(hit.score).toBe(expected[i]?.score);
          });
        },
      ),
      { numRuns: 150 },
    );
  });
});
