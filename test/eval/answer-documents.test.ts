import { ANSWER_DOCUMENTS, loadAnswerDocuments } from './answer-documents';
import { ANSWER_QUESTIONS } from './answer-questions';
import { phrasesNotInDocuments } from './answer-scoring';

describe('answers eval documents', () => {
  it('lists a document missing on this machine with its path instead of failing', () => {
    const { documents, missing } = loadAnswerDocuments([
      {
        name: 'gone.md',
        path: '/nonexistent/answers-eval/README.md',
        kind: 'markdown',
        split: 'tune',
      },
    ]);

    expect(documents).toEqual([]);
    expect(missing).toEqual([
      { name: 'gone.md', reason: '/nonexistent/answers-eval/README.md is not on this machine' },
    ]);
  });

  // The Markdown documents read fast (the man pages need `man`, which the eval
  // itself checks); a document missing on this machine is skipped, as in the eval.
  it("finds every key phrase in its Markdown document's text", () => {
    const markdown = ANSWER_DOCUMENTS.filter((spec) => spec.kind === 'markdown');
    const { documents } = loadAnswerDocuments(markdown);

    expect(phrasesNotInDocuments(ANSWER_QUESTIONS, documents)).toEqual([]);
  });
});
