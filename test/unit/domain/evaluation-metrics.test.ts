import type { EvaluationItem, QuestionResult } from '../../../layers/core/domain/evaluation';
import {
  evaluationTotals,
  percentile,
  type ScoredSource,
  scoreAnswer,
  sentenceSupport,
  tokenF1,
} from '../../../layers/core/domain/evaluation-metrics';
import { NO_ANSWER_TEXT } from '../../../layers/core/domain/no-answer';

/** Every expectation below is worked out by hand from docs/evaluations.md's definitions. */
const source = (url: string | null, title: string, chunk_text?: string): ScoredSource => ({
  document_url: url,
  document_title: title,
  ...(chunk_text === undefined ? {} : { chunk_text }),
});

const NO_SOURCES = 'This agent has no indexed sources yet.';

describe('answer support (P143)', () => {
  it('counts a sentence supported when ≥ 60% of its distinct content terms are in one cited chunk', () => {
    // Sentence 1 terms: widget, carri, two, year, warranti → all 5 in the chunk (100%).
    // Sentence 2 terms: ship, take, five, dai → 0 of 4 in the chunk: unsupported.
    // Sentence 3 terms: warranti, doe, cover, drop, damag, moon → 5 of 6 (83%): supported.
    const chunk =
      'Every widget carries a two year warranty. The warranty does not cover damage from dropping it.';
    const answer =
      'The widget carries a two year warranty [1]. Shipping takes five days. The warranty does not cover drop damage on the moon [1].';
    expect(sentenceSupport(answer, [chunk])).toEqual({ sentences: 3, supported: 2 });
  });

  it('needs the terms in one chunk, not spread over two', () => {
    // Terms: refund, gift, card, cash: 2 in each chunk, 50% each: unsupported.
    expect(
      sentenceSupport('Refund gift cards for cash.', ['Refund policy for cards.', 'Gift of cash.']),
    ).toEqual({ sentences: 1, supported: 0 });
  });

  it('does not count sentences without content terms', () => {
    expect(sentenceSupport('It is. The widget ships [1].', ['Every widget ships.'])).toEqual({
      sentences: 1,
      supported: 1,
    });
  });
});

describe('token F1 (SQuAD-style over content terms)', () => {
  it('is the harmonic mean of term precision and recall', () => {
    // Answer: widget, ship, five, dai, free (5); expected: widget, ship, five, dai (4); overlap 4.
    // P = 4/5, R = 4/4, F1 = 2·0.8·1 / 1.8 = 0.8888…
    expect(
      tokenF1('Widgets ship in five days, free.', 'The widget ships in five days'),
    ).toBeCloseTo(16 / 18, 10);
  });
  it('counts repeated terms at most as often as expected', () => {
    // Answer: warranti ×3 (3); expected: warranti (1); overlap 1: P 1/3, R 1, F1 0.5.
    expect(tokenF1('Warranty warranty warranty.', 'the warranty')).toBe(0.5);
  });
  it('is null for an expected answer without content terms, 0 for an empty answer', () => {
    expect(tokenF1('Anything', 'the of and')).toBeNull();
    expect(tokenF1('[1]', 'warranty')).toBe(0);
  });
});

describe('scoreAnswer', () => {
  const warranty = source(
    'https://x.test/warranty',
    'Warranty',
    'Every widget has a two year warranty.',
  );
  const home = source('https://x.test/', 'Home', 'Find answers about the warranty.');
  const upload = source(null, 'manual.pdf', 'The manual explains the warranty.');

  it('scores retrieval and citations against the expected documents (by URL or title)', () => {
    const metrics = scoreAnswer({
      response: 'Every widget has a two year warranty [1]. The manual explains the warranty [2].',
      retrieved: [warranty, home, upload, warranty],
      cited: [warranty, upload],
      expectedSources: ['https://x.test/warranty', 'manual.pdf', 'https://x.test/returns'],
      expectedAnswer: null,
      noSourcesAnswer: NO_SOURCES,
    });
    expect(metrics).toEqual({
      // 2 of the 3 expected documents were retrieved, and 2 of 3 cited.
      retrieval_recall: 2 / 3,
      citation_recall: 2 / 3,
      // Both cited documents are expected.
      citation_precision: 1,
      answer_support: 1,
      answer_sentences: 2,
      supported_sentences: 2,
      answer_f1: null,
      no_answer: false,
    });
  });

  it('matches an uploaded file by its name, its name and heading, or its document id', () => {
    const file = {
      document_id: 'doc_0123456789abcdefghijklmnop',
      document_title: 'express.md — Express',
      document_url: 'https://svc.test/api/v1/data-sources/ds_1/files/doc_1/content',
      chunk_text: 'Express is a minimal web framework.',
    };
    for (const expected of ['express.md', 'express.md — Express', file.document_id]) {
      const metrics = scoreAnswer({
        response: 'Express is a minimal web framework [1].',
        retrieved: [file],
        cited: [file],
        expectedSources: [expected],
        expectedAnswer: null,
        noSourcesAnswer: NO_SOURCES,
      });
      expect({ expected, recall: metrics.citation_recall }).toEqual({ expected, recall: 1 });
    }
    const other = scoreAnswer({
      response: 'Express is a minimal web framework [1].',
      retrieved: [file],
      cited: [file],
      expectedSources: ['express'],
      expectedAnswer: null,
      noSourcesAnswer: NO_SOURCES,
    });
    expect(other.citation_recall).toBe(0);
  });

  it('leaves citation metrics undefined without expected sources, and precision without citations', () => {
    const none = scoreAnswer({
      response: 'Nothing cited here about widgets.',
      retrieved: [home],
      cited: [],
      expectedSources: null,
      expectedAnswer: null,
      noSourcesAnswer: NO_SOURCES,
    });
    expect(none).toMatchObject({
      retrieval_recall: null,
      citation_precision: null,
      citation_recall: null,
      // One sentence, no cited chunk to support it.
      answer_support: 0,
    });
    const uncited = scoreAnswer({
      response: 'Nothing cited.',
      retrieved: [warranty],
      cited: [],
      expectedSources: ['Warranty'],
      expectedAnswer: null,
      noSourcesAnswer: NO_SOURCES,
    });
    expect(uncited).toMatchObject({
      retrieval_recall: 1,
      citation_precision: null,
      citation_recall: 0,
    });
  });

  it('does not score the honest non-answers for support', () => {
    for (const response of [NO_ANSWER_TEXT, NO_SOURCES, `${NO_ANSWER_TEXT.slice(0, 20)}…`]) {
      expect(
        scoreAnswer({
          response,
          retrieved: [],
          cited: [],
          expectedSources: null,
          expectedAnswer: null,
          noSourcesAnswer: NO_SOURCES,
        }),
      ).toMatchObject({ no_answer: true, answer_support: null, answer_sentences: 0 });
    }
  });
});

describe('totals', () => {
  it('nearest-rank percentiles', () => {
    expect(percentile([], 50)).toBeNull();
    expect(percentile([30, 10, 20], 50)).toBe(20);
    expect(percentile([30, 10, 20], 95)).toBe(30);
    expect(
      percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20], 95),
    ).toBe(19);
  });

  it('macro means per metric, micro answer support, sums of usage; failures count as failed', () => {
    const answered = (
      metrics: Partial<NonNullable<QuestionResult['metrics']>>,
      latency: number,
    ): QuestionResult => ({
      status: 'answered',
      interaction_id: 'int_x',
      response: 'x',
      sources: [],
      retrieved_documents: [],
      metrics: {
        retrieval_recall: null,
        citation_precision: null,
        citation_recall: null,
        answer_support: null,
        answer_sentences: 0,
        supported_sentences: 0,
        answer_f1: null,
        no_answer: false,
        ...metrics,
      },
      latency_ms: latency,
      tokens_input: 100,
      tokens_output: 10,
      cost_usd: 0.0001,
      billed_to: 'service',
      error: null,
      answered_at: '2026-11-24T00:00:00.000Z',
    });
    const item = (index: number, result: QuestionResult | null): EvaluationItem => ({
      index,
      question: 'q',
      expected_answer: null,
      expected_sources: null,
      source_interaction_id: null,
      result,
    });
    const totals = evaluationTotals([
      item(
        0,
        answered(
          {
            retrieval_recall: 1,
            citation_precision: 0.5,
            answer_sentences: 3,
            supported_sentences: 3,
          },
          100,
        ),
      ),
      item(
        1,
        answered(
          {
            retrieval_recall: 0,
            citation_precision: null,
            answer_sentences: 1,
            supported_sentences: 0,
          },
          300,
        ),
      ),
      item(2, answered({ no_answer: true }, 200)),
      item(3, null),
    ]);
    expect(totals).toEqual({
      questions: 4,
      answered: 3,
      failed: 1,
      no_answer: 1,
      retrieval_recall: 0.5,
      citation_precision: 0.5,
      citation_recall: null,
      // (3 + 0) of (3 + 1) sentences.
      answer_support: 0.75,
      answer_f1: null,
      latency_ms: { p50: 200, p95: 300 },
      tokens_input: 300,
      tokens_output: 30,
      cost_usd: 0.0003,
    });
  });
});
