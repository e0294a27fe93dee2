import { NO_ANSWER_TEXT } from '../../layers/core/domain/no-answer';
import { type AnsweredQuestion, citationMetrics, isNoAnswer } from './citation-metrics';

const sources = (...documentIds: string[]) =>
  documentIds.map((documentId, i) => ({ number: i + 1, documentId }));

/** Five hand-made answers: three to answerable questions, two to unanswerable ones. */
const ANSWERS: AnsweredQuestion[] = [
  {
    // [1] twice counts once; [2] is a chunk of a document that does not support the answer.
    questionId: 'a1',
    answer: 'Three to five days [1]. Refunds take a week [2]. Free over 40 euros [1].',
    sources: sources('shipping', 'returns', 'shipping'),
    supportedBy: ['shipping'],
  },
  {
    // [9] was never offered: not a citation.
    questionId: 'a2',
    answer: 'It switches off [3][9].',
    sources: sources('pricing', 'app', 'safety'),
    supportedBy: ['safety', 'troubleshooting'],
  },
  {
    questionId: 'a3',
    answer: NO_ANSWER_TEXT,
    sources: sources('shipping'),
    supportedBy: ['accounts'],
  },
  { questionId: 'u1', answer: NO_ANSWER_TEXT, sources: sources('app'), supportedBy: [] },
  { questionId: 'u2', answer: 'Maybe [1].', sources: sources('app'), supportedBy: [] },
];

describe('citation metrics', () => {
  it('scores each answer by the documents its distinct offered citations point to', () => {
    const { perQuestion } = citationMetrics(ANSWERS);

    expect(perQuestion).toEqual([
      { questionId: 'a1', citations: 2, supportedCitations: 1, noAnswer: false },
      { questionId: 'a2', citations: 1, supportedCitations: 1, noAnswer: false },
      { questionId: 'a3', citations: 0, supportedCitations: 0, noAnswer: true },
      { questionId: 'u1', citations: 0, supportedCitations: 0, noAnswer: true },
      { questionId: 'u2', citations: 1, supportedCitations: 0, noAnswer: false },
    ]);
  });

  it('computes precision over the answerable questions and the honest share over the others', () => {
    const metrics = citationMetrics(ANSWERS);

    expect(metrics).toMatchObject({
      answerable: 3,
      unanswerable: 2,
      citations: 3,
      supportedCitations: 2,
    });
    expect(metrics.precision).toBeCloseTo(2 / 3, 10);
    expect(metrics.macroPrecision).toBeCloseTo((1 / 2 + 1) / 2, 10);
    expect(metrics.supportedAnswerRate).toBeCloseTo(2 / 3, 10);
    expect(metrics.answerableNoAnswerRate).toBeCloseTo(1 / 3, 10);
    expect(metrics.honestNoAnswerRate).toBe(1 / 2);
  });

  it('is NaN, not 0, when nothing was cited', () => {
    expect(citationMetrics([ANSWERS[2] as AnsweredQuestion]).precision).toBeNaN();
  });

  it('recognizes the honest non-answer, also cut short by max_tokens', () => {
    expect(isNoAnswer(NO_ANSWER_TEXT)).toBe(true);
    expect(isNoAnswer("I couldn't find anything…")).toBe(true);
    expect(isNoAnswer('')).toBe(false);
    expect(isNoAnswer('Thirty days [1].')).toBe(false);
  });
});
