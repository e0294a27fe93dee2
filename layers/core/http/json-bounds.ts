import { InvalidRequestError } from '../domain/errors';

/**
 * How large a JSON body may be in shape, beyond the JSON body rules' 1 MiB. Generous
 * for any body the API takes (the deepest is a few levels; the largest
 * string a 200,000-character article) and small enough that no schema,
 * error message or store ever sees a body built to exhaust them.
 */
export const JSON_BOUNDS = {
  /** Arrays and objects inside one another. */
  depth: 32,
  /** Items of one array. */
  arrayItems: 10_000,
  /** Fields of one object. */
  objectKeys: 1_000,
  /** Values in the whole body, containers included. */
  values: 100_000,
  /** UTF-16 code units of one string, after unescaping. */
  stringLength: 262_144,
  /** Characters of one number as written. */
  numberLength: 64,
} as const;

export type JsonBound = keyof typeof JSON_BOUNDS;

const MESSAGES: Record<JsonBound, string> = {
  depth: `Request body nests arrays and objects deeper than ${JSON_BOUNDS.depth} levels`,
  arrayItems: `Request body has an array of more than ${JSON_BOUNDS.arrayItems} items`,
  objectKeys: `Request body has an object of more than ${JSON_BOUNDS.objectKeys} fields`,
  values: `Request body has more than ${JSON_BOUNDS.values} values`,
  stringLength: `Request body has a string longer than ${JSON_BOUNDS.stringLength} characters`,
  numberLength: `Request body has a number longer than ${JSON_BOUNDS.numberLength} characters`,
};

/**
 * A refusal that names where in the body it is (`data_source_ids.3`, as
 * schema errors do), so a caller sees which field broke a bound.
 */
function refuse(message: string, path: string, details: Record<string, unknown> = {}): never {
  const at = path === '' ? '' : ` at ${path}`;
  throw new InvalidRequestError(`${message}${at}`, {
    ...details,
    ...(path === '' ? {} : { fields: [{ path, message }] }),
  });
}

function beyond(bound: JsonBound, path: string): never {
  refuse(MESSAGES[bound], path, { limit: bound, max: JSON_BOUNDS[bound] });
}

/** `a.b.3` for the value being read: each object's current field, each array's current index. */
function pathOf(stack: readonly Container[]): string {
  return stack
    .map((container) =>
      container.kind === 'object'
        ? container.currentKey.slice(0, 100)
        : String(Math.max(0, container.items - 1)),
    )
    .join('.');
}

function malformed(message: string): never {
  throw new InvalidRequestError(message);
}

interface Container {
  readonly kind: 'array' | 'object';
  items: number;
  /** An object's field names so far (unescaped), to refuse a repeated one. */
  readonly keys: Set<string> | undefined;
  /** Inside an object: whether the next string is a field name. */
  expectingKey: boolean;
  /** Inside an object: the field whose value comes next, for the path of a refusal. */
  currentKey: string;
}

/** `\n` and the like: what they stand for, so escaped field names compare as written. */
const SHORT_ESCAPES: Readonly<Record<string, number>> = {
  '"': 0x22,
  '\\': 0x5c,
  '/': 0x2f,
  b: 0x08,
  f: 0x0c,
  n: 0x0a,
  r: 0x0d,
  t: 0x09,
};

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * Reads one string token starting at the opening quote. Returns the index
 * after the closing quote and the string's unescaped length; `unescaped`
 * gets the value when it is wanted (field names). Refuses unpaired
 * surrogates (`"\ud800"`): no store or signature takes them.
 */
function readString(
  text: string,
  start: number,
  wantValue: boolean,
  path: () => string,
): { end: number; length: number; value: string } {
  let index = start + 1;
  let length = 0;
  let value = '';
  let pendingHigh = false;
  for (;;) {
    if (index >= text.length) malformed('Request body is not valid UTF-8 JSON');
    const code = text.charCodeAt(index);
    if (code === QUOTE) break;
    let unit = code;
    if (code === BACKSLASH) {
      const escaped = text[index + 1];
      if (escaped === 'u') {
        unit = Number.parseInt(text.slice(index + 2, index + 6), 16);
        if (Number.isNaN(unit)) malformed('Request body is not valid UTF-8 JSON');
        index += 6;
      } else {
        // An unknown escape is left for JSON.parse to refuse.
        unit = SHORT_ESCAPES[escaped ?? ''] ?? 0;
        index += 2;
      }
    } else {
      index += 1;
    }
    if (pendingHigh !== isLowSurrogate(unit)) unpairedSurrogate(path());
    pendingHigh = !pendingHigh && isHighSurrogate(unit);
    length += 1;
    if (length > JSON_BOUNDS.stringLength) beyond('stringLength', path());
    if (wantValue) value += String.fromCharCode(unit);
  }
  if (pendingHigh) unpairedSurrogate(path());
  return { end: index + 1, length, value };
}

function unpairedSurrogate(path: string): never {
  refuse('Request body has a string with an unpaired surrogate (\\ud800-\\udfff)', path);
}

/**
 * Checks a JSON body's shape in one pass over its text, before
 * `JSON.parse` or any schema sees it: depth, array and object sizes, the
 * number of values, string and number lengths, repeated field names (which
 * `JSON.parse` would silently collapse to the last) and unpaired surrogates.
 * A refusal names the bound and where in the body it was broken. Syntax
 * errors are left to `JSON.parse`, which follows.
 */
export function assertJsonWithinBounds(text: string): void {
  const stack: Container[] = [];
  const path = () => pathOf(stack);
  let values = 0;
  let index = 0;
  // Called as a value starts, so each array's current index is `items - 1`.
  const countValue = () => {
    values += 1;
    const parent = stack[stack.length - 1];
    if (parent) {
      parent.items += 1;
      if (parent.kind === 'object') parent.expectingKey = false;
    }
    if (values > JSON_BOUNDS.values) beyond('values', path());
    if (parent?.kind === 'array' && parent.items > JSON_BOUNDS.arrayItems) {
      beyond('arrayItems', path());
    }
  };
  while (index < text.length) {
    const char = text[index];
    switch (char) {
      case '{':
      case '[': {
        countValue();
        if (stack.length >= JSON_BOUNDS.depth) beyond('depth', path());
        const kind = char === '{' ? 'object' : 'array';
        stack.push({
          kind,
          items: 0,
          keys: kind === 'object' ? new Set() : undefined,
          expectingKey: kind === 'object',
          currentKey: '',
        });
        index += 1;
        break;
      }
      case '}':
      case ']':
        stack.pop();
        index += 1;
        break;
      case ',': {
        const parent = stack[stack.length - 1];
        if (parent?.kind === 'object') parent.expectingKey = true;
        index += 1;
        break;
      }
      case '"': {
        const parent = stack[stack.length - 1];
        const isKey = parent?.kind === 'object' && parent.expectingKey;
        if (!isKey) countValue();
        const token = readString(text, index, isKey, path);
        if (isKey && parent?.keys) {
          parent.currentKey = token.value;
          if (parent.keys.has(token.value)) {
            refuse('Request body gives a field twice', path());
          }
          parent.keys.add(token.value);
          if (parent.keys.size > JSON_BOUNDS.objectKeys) beyond('objectKeys', path());
          parent.expectingKey = false;
        }
        index = token.end;
        break;
      }
      default: {
        if (char === '-' || (char !== undefined && char >= '0' && char <= '9')) {
          countValue();
          let end = index + 1;
          while (end < text.length && /[0-9eE+\-.]/.test(text[end] ?? '')) end += 1;
          if (end - index > JSON_BOUNDS.numberLength) beyond('numberLength', path());
          if (!Number.isFinite(Number(text.slice(index, end)))) {
            refuse('Request body has a number too large to represent', path(), {
              limit: 'number',
              max: Number.MAX_VALUE,
            });
          }
          index = end;
        } else if (char === 't' || char === 'f' || char === 'n') {
          countValue();
          index += char === 'f' ? 5 : 4;
        } else {
          // Whitespace, `:` and anything JSON.parse will refuse anyway.
          index += 1;
        }
      }
    }
  }
}
