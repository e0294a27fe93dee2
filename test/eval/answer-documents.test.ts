import { loadAnswerDocuments } from './answer-documents';

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
});
