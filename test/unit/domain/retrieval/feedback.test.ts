import { feedbackTerms } from '../../../../layers/core/domain/retrieval/feedback';

const options = { passages: 10, terms: 10, originalWeight: 0.5 };

describe('Function: feedbackTerms', () => {
  it('weighs terms by their share of each passage times the passage share of the scores', () => {
    // Prepare: |q| = 2 (glacier, melt); passage weights 3/4 and 1/4.
    // "Glaciers retreat as ice melts": 4 terms (as is a stopword), each 1/4 → 3/16 each.
    // "Ice sheets retreat": 3 terms, each 1/3 → 1/12 each.
    // p(retreat) = p(ice) = 3/16 + 1/12 = 13/48; p(glacier) = p(melt) = 9/48; p(sheet) = 4/48.
    const passages = [
      { text: 'Glaciers retreat as ice melts', score: 3 },
      { text: 'Ice sheets retreat', score: 1 },
    ];

    // Act: the 3 most likely, renormalised (13 + 13 + 9 = 35), scaled by (1 − α) / α · |q| = 2.
    const terms = feedbackTerms('glacier melt', passages, { ...options, terms: 3 });

    // Assess: ties (retreat and ice; glacier and melt) go to the term met first.
    expect(terms.map((term) => term.word)).toEqual(['retreat', 'ice', 'glaciers']);
    expect(terms[0]?.weight).toBeCloseTo(26 / 35, 12);
    expect(terms[1]?.weight).toBeCloseTo(26 / 35, 12);
    expect(terms[2]?.weight).toBeCloseTo(18 / 35, 12);
  });

  it('reads only the first passages and scales by the original query weight', () => {
    // One passage of 4 terms, each 1/4; all 4 kept; α 0.8 → scale (0.2 / 0.8) · 1 = 0.25.
    const terms = feedbackTerms(
      'glacier',
      [
        { text: 'Glaciers retreat as ice melts', score: 2 },
        { text: 'Quarterly revenue grew', score: 1 },
      ],
      { passages: 1, terms: 10, originalWeight: 0.8 },
    );

    expect(terms.map((term) => term.word)).toEqual(['glaciers', 'retreat', 'ice', 'melts']);
    for (const term of terms) expect(term.weight).toBeCloseTo(0.0625, 12);
  });

  it('returns each term as the spelling the passages use most', () => {
    const [term] = feedbackTerms('biology', [{ text: 'cells cell cells', score: 1 }], options);

    expect(term).toEqual({ word: 'cells', weight: 1 });
  });

  it('leaves out bare numbers and one-character words, which still count in the passage length', () => {
    // "2019 trial b results": 4 terms in length; trial and result 1/4 each, renormalised to 1/2.
    const terms = feedbackTerms('outcome', [{ text: '2019 trial b results', score: 1 }], options);

    expect(terms).toEqual([
      { word: 'trial', weight: 0.5 },
      { word: 'results', weight: 0.5 },
    ]);
  });

  it('returns nothing when feedback is off or has nothing to read', () => {
    const passages = [{ text: 'Glaciers retreat', score: 1 }];

    expect(feedbackTerms('glacier', passages, { ...options, originalWeight: 1 })).toEqual([]);
    expect(feedbackTerms('glacier', passages, { ...options, passages: 0 })).toEqual([]);
    expect(feedbackTerms('glacier', passages, { ...options, terms: 0 })).toEqual([]);
    expect(feedbackTerms('the of and', passages, options)).toEqual([]);
    expect(feedbackTerms('glacier', [], options)).toEqual([]);
    expect(feedbackTerms('glacier', [{ text: 'Glaciers', score: 0 }], options)).toEqual([]);
  });
});
