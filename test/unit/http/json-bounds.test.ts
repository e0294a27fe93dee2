import fc from 'fast-check';
import { InvalidRequestError } from '../../../layers/core/domain/errors';
import { assertJsonWithinBounds, JSON_BOUNDS } from '../../../layers/core/http/json-bounds';

/** The error a body gets, or `undefined` when it is within bounds. */
function refusalOf(text: string): InvalidRequestError | undefined {
  try {
    assertJsonWithinBounds(text);
    return undefined;
  } catch (error) {
    if (error instanceof InvalidRequestError) return error;
    throw error;
  }
}

/** With the `u` flag a surrogate pair is one code point: this matches only an unpaired half. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const objectOf = (keys: number) =>
  `{${Array.from({ length: keys }, (_, i) => `"k${i}":${i}`).join(',')}}`;

/** P197: the shape bounds every JSON body passes before it is parsed. */
describe('Function: assertJsonWithinBounds', () => {
  it('accepts every well-formed JSON value within the bounds, whatever its content', () => {
    const wellFormed = fc
      .jsonValue({ maxDepth: 8 })
      .filter((value) => !LONE_SURROGATE.test(JSON.stringify(value)));
    fc.assert(
      fc.property(wellFormed, fc.boolean(), (value, pretty) => {
        const text = JSON.stringify(value, null, pretty ? 2 : undefined);
        expect(refusalOf(text)).toBeUndefined();
      }),
      { numRuns: 500 },
    );
  });

  it.each([
    ['depth', nested(JSON_BOUNDS.depth + 1), nested(JSON_BOUNDS.depth)],
    [
      'arrayItems',
      `[${'0,'.repeat(JSON_BOUNDS.arrayItems)}0]`,
      `[${'0,'.repeat(JSON_BOUNDS.arrayItems - 1)}0]`,
    ],
    ['objectKeys', objectOf(JSON_BOUNDS.objectKeys + 1), objectOf(JSON_BOUNDS.objectKeys)],
    [
      'values',
      `[${Array.from({ length: 11 }, () => `[${'0,'.repeat(9_999)}0]`).join(',')}]`,
      `[${Array.from({ length: 9 }, () => `[${'0,'.repeat(9_999)}0]`).join(',')}]`,
    ],
    [
      'stringLength',
      JSON.stringify({ content: 'a'.repeat(JSON_BOUNDS.stringLength + 1) }),
      JSON.stringify({ content: '\n'.repeat(JSON_BOUNDS.stringLength) }),
    ],
    ['numberLength', `{"n":1${'0'.repeat(JSON_BOUNDS.numberLength)}}`, '{"n":1.5e10}'],
  ])(
    'refuses a body past the %s bound with 400 naming it, and takes one at it',
    (bound, over, at) => {
      expect(refusalOf(over)?.details).toMatchObject({
        limit: bound,
        max: JSON_BOUNDS[bound as keyof typeof JSON_BOUNDS],
      });
      expect(refusalOf(at)).toBeUndefined();
    },
  );

  it('refuses a number JSON.parse would turn into Infinity', () => {
    expect(refusalOf('{"max_pages":1e400}')?.message).toMatch(/too large/);
    expect(refusalOf('[-1e309]')?.message).toMatch(/too large/);
  });

  it.each([
    ['{"name":"a","name":"b"}', 'name'],
    ['{"a":{"x":1,"x":2}}', 'a.x'],
    ['{"list":[{"x":1},{"y":1,"y":2}]}', 'list.1.y'],
    // The same name written two ways is the same field.
    ['{"name":1,"\\u006eame":2}', 'name'],
    ['{"a\\nb":1,"a\\u000ab":2}', 'a\nb'],
  ])('refuses a repeated field name in one object: %s', (text, path) => {
    expect(refusalOf(text)?.details).toEqual({
      fields: [{ path, message: 'Request body gives a field twice' }],
    });
  });

  it('names where in the body a bound was broken', () => {
    const refusal = refusalOf(
      JSON.stringify({ a: [1, { b: 'x'.repeat(JSON_BOUNDS.stringLength + 1) }] }),
    );
    expect(refusal?.message).toMatch(/ at a\.1\.b$/);
    expect(refusal?.details.fields).toEqual([{ path: 'a.1.b', message: expect.any(String) }]);
  });

  it('takes the same name in different objects, and names that only look alike', () => {
    expect(refusalOf('{"a":{"x":1},"b":{"x":2}}')).toBeUndefined();
    expect(refusalOf('{"a\\nb":1,"a\\tb":2}')).toBeUndefined();
    expect(refusalOf('[{"x":1},{"x":1}]')).toBeUndefined();
  });

  it.each(['"\\ud800"', '"\\udc00"', '"\\ud800x"', '"\\ud800\\ud800"', '{"\\udfff":1}'])(
    'refuses an unpaired surrogate: %s',
    (text) => {
      expect(refusalOf(text)?.message).toMatch(/unpaired surrogate/);
    },
  );

  it('takes a surrogate pair, escaped or not', () => {
    expect(refusalOf('"\\ud83d\\ude80"')).toBeUndefined();
    expect(refusalOf('"🚀"')).toBeUndefined();
  });

  it('leaves syntax to JSON.parse: brackets and quotes inside strings are text', () => {
    expect(refusalOf(JSON.stringify({ text: `${'['.repeat(100)}"{{{` }))).toBeUndefined();
  });
});
