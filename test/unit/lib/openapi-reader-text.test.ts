import { DECISION_CITATION, forReaders } from '../../../lib/openapi-document/reader-text';

describe("The API document's descriptions for readers", () => {
  it.each([
    ['Rotate the secret (D29)', 'Rotate the secret'],
    ['malformed input (D1, D4, P197)', 'malformed input'],
    ['wrong password (one answer for both, P62)', 'wrong password (one answer for both)'],
    ['the agents using it, by id and name: P135, P282)', 'the agents using it, by id and name)'],
    [
      'Queue a sync job (D22: returns the running job)',
      'Queue a sync job (returns the running job)',
    ],
    ["D16's reasons a route can be refused for", 'reasons a route can be refused for'],
    ['D34 metrics and time_series', 'metrics and time_series'],
    ['bounds per D17/D18', 'bounds'],
  ])('takes the decision citations out of %j', (text, expected) => {
    expect(forReaders(text)).toBe(expected);
  });

  it('leaves a description without citations as it is', () => {
    const text = 'Seconds to wait before retrying (429 and 503); p95 latency in ms';
    expect(forReaders(text)).toBe(text);
    expect(DECISION_CITATION.test(text)).toBe(false);
  });
});
