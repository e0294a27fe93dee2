import {
  documentationTerms,
  documentationWords,
} from '../../../../layers/core/domain/retrieval/documentation-words';

describe('Function: documentationTerms', () => {
  it("brings in the documentation's word for a user's", () => {
    expect([...documentationTerms('how can i turn off the cache').keys()]).toEqual(['disabl']);
    expect([...documentationTerms('which folder is it in').keys()]).toEqual(['directori']);
    expect([...documentationTerms('turn a dict back into xml').keys()]).toEqual(['convert']);
  });

  it("remembers which of the question's words each one stands for", () => {
    expect(documentationTerms('wipe the folder').get('directori')).toBe('folder');
  });
});

describe('Function: documentationWords', () => {
  it("gives the documentation's words as written, for a search to add", () => {
    expect(documentationWords('how can i turn off the cache')).toEqual(['disable']);
    expect(documentationWords('env var for the proxy')).toEqual(['environment', 'variable']);
  });

  it('reads a phrase as the phrase, not its words one by one', () => {
    // "turn off" is "disable"; "turn" alone would have been "convert".
    expect(documentationWords('turn off the cache')).toEqual(['disable']);
  });

  it('leaves out a word the question already says', () => {
    expect(documentationWords('delete or remove a file')).toEqual([]);
  });

  it("adds nothing to a question in the documentation's own words", () => {
    expect(documentationWords('disable the cache directory')).toEqual([]);
  });
});
