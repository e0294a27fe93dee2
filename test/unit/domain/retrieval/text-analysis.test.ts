import {
  analyze,
  ENGLISH_STOPWORDS,
  words,
} from '../../../../layers/core/domain/retrieval/text-analysis';

describe('Domain: text analysis', () => {
  it("uses Lucene's 33 English stopwords", () => {
    expect(ENGLISH_STOPWORDS.size).toBe(33);
    expect(ENGLISH_STOPWORDS.has('the')).toBe(true);
    expect(ENGLISH_STOPWORDS.has('were')).toBe(false);
  });

  it('lowercases and splits on spaces, punctuation, hyphens and slashes', () => {
    expect(words('IL-6 and TNF/alpha: levels (raised)!')).toEqual([
      'il',
      '6',
      'and',
      'tnf',
      'alpha',
      'levels',
      'raised',
    ]);
  });

  it('keeps numbers, abbreviations and contractions whole', () => {
    expect(words('p < 0.05 in 1,000 U.S. cases; don’t')).toEqual([
      'p',
      '0.05',
      'in',
      '1,000',
      'u.s',
      'cases',
      'don’t',
    ]);
  });

  it('drops English possessives', () => {
    expect(words("the patient's and the doctor’s")).toEqual([
      'the',
      'patient',
      'and',
      'the',
      'doctor',
    ]);
  });

  it('reads any script, one word per Han or Hiragana character', () => {
    expect(words('Größe café 東京 ありがとう')).toEqual([
      'größe',
      'café',
      '東',
      '京',
      'あ',
      'り',
      'が',
      'と',
      'う',
    ]);
  });

  it('removes stopwords and stems what is left (Porter)', () => {
    expect(analyze('The proteins were expressed in the cells')).toEqual([
      'protein',
      'were',
      'express',
      'cell',
    ]);
  });

  it('gives the same terms to the forms of a word', () => {
    expect(new Set(analyze('connect connected connecting connection connections'))).toEqual(
      new Set(['connect']),
    );
  });

  it('finds no terms in text without words', () => {
    expect(analyze('  — !? ')).toEqual([]);
  });
});
