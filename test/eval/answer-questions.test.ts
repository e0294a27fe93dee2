import { ANSWER_DOCUMENTS } from './answer-documents';
import { ANSWER_CATEGORIES, ANSWER_QUESTIONS } from './answer-questions';

/** The question file's shape, checked without the documents (they live under /usr/share/doc). */
describe('answers eval questions', () => {
  const answerable = ANSWER_QUESTIONS.filter((question) => question.document !== null);
  const unanswerable = ANSWER_QUESTIONS.filter((question) => question.document === null);
  const documents = new Map(ANSWER_DOCUMENTS.map((document) => [document.name, document]));

  it('asks at least 60 answerable questions, each with a key phrase, a category and a split', () => {
    expect(answerable.length).toBeGreaterThanOrEqual(60);
    for (const question of answerable) {
      expect(question.phrases.length).toBeGreaterThan(0);
      for (const phrase of question.phrases) expect(phrase.trim()).not.toBe('');
      expect(ANSWER_CATEGORIES).toContain(question.category);
      expect(['tune', 'holdout', 'holdout2']).toContain(question.split);
    }
  });

  it('names each question once', () => {
    const ids = ANSWER_QUESTIONS.map((question) => question.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("takes every answerable question's split from its document, which is listed", () => {
    for (const question of answerable) {
      expect({ id: question.id, split: documents.get(question.document ?? '')?.split }).toEqual({
        id: question.id,
        split: question.split,
      });
    }
  });

  it('holds out about half of the first set (tune and holdout)', () => {
    const first = answerable.filter((question) => question.split !== 'holdout2');
    const holdout = first.filter((question) => question.split === 'holdout').length;
    expect(holdout / first.length).toBeGreaterThan(0.35);
    expect(holdout / first.length).toBeLessThan(0.65);
  });

  it('asks a second held-out set of about 60 questions of every kind over 12 to 20 Node.js API pages', () => {
    const second = answerable.filter((question) => question.split === 'holdout2');
    expect(second.length).toBeGreaterThanOrEqual(55);
    const pages = new Set(second.map((question) => question.document));
    expect(pages.size).toBeGreaterThanOrEqual(12);
    expect(pages.size).toBeLessThanOrEqual(20);
    for (const page of pages) expect(documents.get(page ?? '')?.path).toMatch(/\/nodejs\/api\//);
    for (const category of ANSWER_CATEGORIES) {
      expect(second.filter((question) => question.category === category).length).toBeGreaterThan(2);
    }
    expect(unanswerable.filter((question) => question.split === 'holdout2').length).toBeGreaterThan(
      0,
    );
  });

  it('asks some questions that nothing in the set answers, with no phrase', () => {
    expect(unanswerable.length).toBeGreaterThanOrEqual(5);
    for (const question of unanswerable) expect(question.phrases).toEqual([]);
  });

  it('asks every kind of question', () => {
    for (const category of ANSWER_CATEGORIES) {
      expect(
        answerable.filter((question) => question.category === category).length,
      ).toBeGreaterThan(2);
    }
  });

  it('uploads distinct file names and keeps distractors no question is about', () => {
    expect(documents.size).toBe(ANSWER_DOCUMENTS.length);
    const asked = new Set(answerable.map((question) => question.document));
    const distractors = ANSWER_DOCUMENTS.filter((document) => document.split === 'distractor');
    expect(distractors.length).toBeGreaterThan(5);
    for (const distractor of distractors) expect(asked.has(distractor.name)).toBe(false);
  });
});
