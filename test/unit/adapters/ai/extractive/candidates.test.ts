import { candidatesOf } from '../../../../../layers/core/adapters/ai/extractive/candidates';
import type { AnswerSource } from '../../../../../layers/core/ports/answerer.port';

const source = (title: string, text: string): AnswerSource => ({
  number: 1,
  chunk_id: 'chk_1',
  document_title: title,
  document_url: null,
  text,
  score: 0.5,
});

describe('Function: candidatesOf', () => {
  it("reads the words of a file's name in its document title", () => {
    const [candidate] = candidatesOf(
      source('pip-caching.md — Caching', 'The cache keeps built wheels between installs.'),
      'explanation',
    );

    expect([...(candidate?.titleTerms ?? [])]).toEqual(expect.arrayContaining(['pip', 'cach']));
  });
});
