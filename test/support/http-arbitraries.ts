import fc from 'fast-check';
import type { Route } from '../../layers/core/http/route';

/**
 * fast-check arbitraries for hostile HTTP input: JSON bodies serialised by
 * hand (so keys such as `__proto__` really reach the wire), query strings with
 * junk names and percent-encoding, and path ids of every shape.
 */

/** encodeURIComponent that survives lone surrogates (sent as U+FFFD, as a browser would). */
export function encode(value: string): string {
  return encodeURIComponent(
    value.replace(
      /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
      '\ufffd',
    ),
  );
}

/** Every string flavour worth sending: unicode, lone surrogates, NUL and other control bytes. */
export const anyString = (maxLength = 40): fc.Arbitrary<string> =>
  fc.oneof(
    fc.string({ maxLength }),
    fc.string({ maxLength, unit: 'binary' }),
    fc.string({ maxLength, unit: 'grapheme' }),
    fc.constantFrom('', ' ', '\u0000', 'a\u0000b', '\ud800', '\u202e', '%00', '𝔘𝔫𝔦'),
  );

/** Numbers that stress JSON and storage: extremes, subnormals, negative zero, huge integers. */
export const anyNumber: fc.Arbitrary<number> = fc.oneof(
  { weight: 2, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  { weight: 1, arbitrary: fc.integer() },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      0,
      -0,
      1,
      2,
      2.0000001,
      1e-130,
      1e-200,
      5e-324,
      1e300,
      Number.MAX_SAFE_INTEGER + 2,
      10_001,
      200,
      201,
    ),
  },
);

/** Field names the service knows (both spellings), prototype-polluting ones, and random ones. */
export const FIELD_NAMES = [
  'name',
  'data_source_ids',
  'dataSourceIds',
  'system_prompt',
  'systemPrompt',
  'rag_strategy',
  'ragStrategy',
  'model',
  'temperature',
  'max_tokens',
  'maxTokens',
  'status',
  'type',
  'config',
  'sync_frequency',
  'syncFrequency',
  'url',
  'max_pages',
  'maxPages',
  'id',
  'org_id',
  'orgId',
  // Query, search and feedback bodies.
  'agent_id',
  'agentId',
  'query',
  'session_id',
  'sessionId',
  'stream',
  'top_k',
  'topK',
  'similarity_threshold',
  'include_embedding',
  'feedback',
  'comment',
  'interaction_id',
  'interactionId',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
] as const;

export const fieldName: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...FIELD_NAMES) },
  { weight: 1, arbitrary: anyString(20) },
);

/** A JSON value built to be hostile: deep, unicode, extreme numbers. */
export const hostileJsonValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    anyNumber,
    anyString(),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.array(fc.tuple(fieldName, tie('value')), { maxLength: 4 }).map(toObjectText),
  ),
})).value;

/**
 * An object written as JSON text from entries, so `__proto__` and repeated
 * keys survive serialisation (JSON.stringify would drop or merge them). The
 * result is marked so `jsonText` splices it in verbatim.
 */
export class RawJson {
  constructor(readonly text: string) {}
}

function toObjectText(entries: ReadonlyArray<readonly [string, unknown]>): RawJson {
  return new RawJson(
    `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${jsonText(value)}`).join(',')}}`,
  );
}

/** Serialises a value that may contain `RawJson` objects. */
export function jsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(jsonText).join(',')}]`;
  return JSON.stringify(value) ?? 'null';
}

/** Takes a valid body and breaks it a little: one field changed, removed, or added. */
export function mutatedBody(valid: Record<string, unknown>): fc.Arbitrary<string> {
  const names = Object.keys(valid);
  const replaced = (name: string, value: unknown) =>
    jsonText(toObjectText(entriesWith(valid, name, value)));
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant(jsonText(valid)) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom(...names), hostileJsonValue)
        .map(([name, value]) => replaced(name, value)),
    },
    {
      weight: 4,
      arbitrary: fc
        .constantFrom(...names)
        .chain((name) => sameKindAs(valid[name]).map((value) => replaced(name, value))),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(...names)
        .map((name) =>
          jsonText(toObjectText(Object.entries(valid).filter(([key]) => key !== name))),
        ),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fieldName, hostileJsonValue)
        .map(([name, value]) => jsonText(toObjectText([...Object.entries(valid), [name, value]]))),
    },
  );
}

/** A value of the same JSON kind as `value`, so it gets past type checks and tests the bounds. */
function sameKindAs(value: unknown): fc.Arbitrary<unknown> {
  if (typeof value === 'number') return anyNumber;
  if (typeof value === 'string') return anyString(300);
  if (Array.isArray(value)) return fc.array(anyString(30), { maxLength: 3 });
  if (value !== null && typeof value === 'object') {
    return fc
      .constantFrom(...Object.keys(value))
      .chain((name) =>
        sameKindAs((value as Record<string, unknown>)[name]).map(
          (inner) =>
            new RawJson(
              jsonText(toObjectText(entriesWith(value as Record<string, unknown>, name, inner))),
            ),
        ),
      );
  }
  return hostileJsonValue;
}

function entriesWith(
  valid: Record<string, unknown>,
  name: string,
  value: unknown,
): Array<readonly [string, unknown]> {
  return Object.entries(valid).map(([key, old]) => [key, key === name ? value : old] as const);
}

/** A request body as sent: JSON text or other text, with the content type to send. */
export interface FuzzBody {
  readonly text: string | undefined;
  readonly contentType: string | undefined;
}

export function fuzzBody(valid: ReadonlyArray<Record<string, unknown>>): fc.Arbitrary<FuzzBody> {
  const json = (text: fc.Arbitrary<string>) =>
    text.map((body) => ({ text: body, contentType: 'application/json' }));
  return fc.oneof(
    { weight: 4, arbitrary: json(fc.constantFrom(...valid).chain(mutatedBody)) },
    { weight: 3, arbitrary: json(hostileJsonValue.map(jsonText)) },
    { weight: 1, arbitrary: fc.constant({ text: undefined, contentType: undefined }) },
    {
      weight: 1,
      arbitrary: fc.record({
        text: anyString(60),
        contentType: fc.constantFrom(
          'application/json',
          'text/plain',
          'application/x-www-form-urlencoded',
          'application/json; charset=latin1',
          'multipart/form-data; boundary=x',
        ),
      }),
    },
  );
}

/** One query parameter as sent: raw (only `#` and whitespace removed) or percent-encoded. */
function queryParameter([name, value, raw]: readonly [string, string, boolean]): string {
  return raw
    ? `${name.replace(/[#\s]/g, '')}=${value.replace(/[#\s]/g, '')}`
    : `${encode(name)}=${encode(value)}`;
}

/** Query-string values worth trying: bounds, dates real and impossible, filter values, junk. */
export const queryValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('', '0', '1', '-1', '1.5', '200', '201', 'abc', 'pending', 'active', '1e3'),
  fc.constantFrom(
    '2027-03-01',
    '2026-02-30',
    '2026-13-01',
    '20270301',
    'null',
    'positive',
    'hour',
    'week',
  ),
  anyNumber.map(String),
  anyString(12),
);

/** Query strings: known and junk names, encoded or raw, repeated or not. */
export const fuzzQuery: fc.Arbitrary<string> = fc
  .array(
    fc.tuple(
      fc.oneof(
        {
          weight: 3,
          arbitrary: fc.constantFrom(
            'limit',
            'offset',
            'status',
            'agentId',
            'agent_id',
            'start_date',
            'end_date',
            'startDate',
            'feedback',
            'granularity',
            '__proto__',
            'constructor',
            'toString',
            'hasOwnProperty',
          ),
        },
        { weight: 1, arbitrary: anyString(12) },
      ),
      queryValue,
      fc.boolean(),
    ),
    { maxLength: 4 },
  )
  .map((params) => params.map(queryParameter).join('&'));

/**
 * Query strings built around an endpoint's own parameters: each one present
 * or not, with a plausible value (mostly valid: the requests get past
 * validation) or a hostile one, sometimes an unknown parameter beside them.
 */
export function fuzzQueryOf(
  parameters: Readonly<Record<string, fc.Arbitrary<string>>>,
): fc.Arbitrary<string> {
  const present = Object.entries(parameters).map(([name, value]) =>
    fc.option(
      fc.tuple(
        fc.constant(name),
        fc.oneof({ weight: 4, arbitrary: value }, { weight: 1, arbitrary: queryValue }),
        fc.boolean(),
      ),
      // Present two times out of three.
      { freq: 3 },
    ),
  );
  const extra = fc.oneof(
    { weight: 6, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.tuple(anyString(12), queryValue, fc.boolean()) },
  );
  return fc.tuple(fc.tuple(...present), extra).map(([params, junk]) =>
    [...params, junk]
      .filter((param): param is [string, string, boolean] => param !== null)
      .map(queryParameter)
      .join('&'),
  );
}

/** A path id: existing, unknown but well-formed, or anything at all. */
export function fuzzId(known: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...known) },
    {
      weight: 2,
      arbitrary: anyString()
        .filter((id) => id !== '')
        .map(encode),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '%ZZ',
        '%',
        '..',
        '.',
        '%2F',
        '%00',
        'agt_%F0%9F%98%80',
        '%E0%A4%A',
        'ds_01jf3z8k7q2m4n6p8r0s2t4v6w',
        'agt_01jf3z8k7q2m4n6p8r0s2t4v6w',
        'agt_01JF3Z8K7Q2M4N6P8R0S2T4V6W',
      ),
    },
  );
}

/** A concrete path for a route, with `{id}` filled in. */
export function routePath(route: Route, id: string): string {
  // Every path parameter gets the id: a mismatched kind is one more thing to refuse.
  return route.path.replace(/\{[a-z_]+\}/g, id);
}
