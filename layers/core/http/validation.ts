import type { APIGatewayProxyEvent } from 'aws-lambda';
import * as z from 'zod/mini';
import { InvalidRequestError } from '../domain/errors';
import { ID_PREFIXES, type IdKind, isId } from '../domain/ids';
import '../zod-english';

export interface FieldIssue {
  readonly path: string;
  readonly message: string;
}

/** Zod issues → a 400 that names every offending field; unknown fields are listed apart. */
export function invalidRequest(
  where: 'body' | 'query',
  issues: readonly z.core.$ZodIssue[],
): InvalidRequestError {
  const unknownFields = issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => [...issue.path, key].join('.'))
      : [],
  );
  const fields: FieldIssue[] = issues
    .filter((issue) => issue.code !== 'unrecognized_keys')
    .map((issue) => ({
      path: issue.path.map(String).join('.') || `(${where})`,
      message: issue.message,
    }));
  const parts = [
    ...(unknownFields.length > 0
      ? [`unknown ${where === 'body' ? 'field' : 'parameter'}(s): ${unknownFields.join(', ')}`]
      : []),
    ...fields.map((field) => `${field.path}: ${field.message}`),
  ];
  return new InvalidRequestError(
    `Invalid ${where === 'body' ? 'request body' : 'query string'}: ${parts.join('; ')}`,
    {
      ...(fields.length > 0 ? { fields } : {}),
      ...(unknownFields.length > 0 ? { unknown_fields: unknownFields } : {}),
    },
  );
}

const camelToSnake = (key: string) => key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/**
 * Legacy paths accept camelCase synonyms (`agentId` for `agent_id`).
 * Giving both spellings of one field is ambiguous, and refused.
 */
export function snakeCaseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeCaseKeys);
  if (value === null || typeof value !== 'object') return value;
  const seen = new Map<string, string>();
  const entries: Array<[string, unknown]> = [];
  for (const [key, inner] of Object.entries(value)) {
    const snake = camelToSnake(key);
    const earlier = seen.get(snake);
    if (earlier !== undefined) {
      throw new InvalidRequestError(`Field ${snake} is given twice (as ${earlier} and ${key})`, {
        fields: [{ path: snake, message: 'given twice' }],
      });
    }
    seen.set(snake, key);
    entries.push([snake, snakeCaseKeys(inner)]);
  }
  // fromEntries defines own properties: a "__proto__" key stays a key (and is refused as unknown).
  return Object.fromEntries(entries);
}

/** Query parameters as one string each; a repeated parameter is refused rather than guessed at. */
export function singleValuedQuery(event: APIGatewayProxyEvent): Record<string, string> {
  const multi = event.multiValueQueryStringParameters ?? {};
  const repeated = Object.entries(multi)
    .filter(([, values]) => (values?.length ?? 0) > 1)
    .map(([name]) => name);
  if (repeated.length > 0) {
    throw new InvalidRequestError(
      `Query parameter(s) given more than once: ${repeated.join(', ')}`,
      {
        fields: repeated.map((path) => ({ path, message: 'given more than once' })),
      },
    );
  }
  // fromEntries, not assignment: a parameter named "__proto__" stays a key (and is refused as unknown).
  return Object.fromEntries(
    Object.entries(event.queryStringParameters ?? {}).filter(
      (entry): entry is [string, string] => entry[1] !== undefined,
    ),
  );
}

/** A path id with the wrong prefix or shape is a 400, not a 404. */
export function assertPathIds(
  params: Record<string, string>,
  expected: Record<string, IdKind>,
): void {
  for (const [name, kind] of Object.entries(expected)) {
    const value = params[name] ?? '';
    if (!isId(kind, value)) {
      throw new InvalidRequestError(
        `Invalid ${name}: expected an id like ${ID_PREFIXES[kind]}_ followed by 26 lower-case characters`,
        { fields: [{ path: name, message: `must be an id with prefix ${ID_PREFIXES[kind]}_` }] },
      );
    }
  }
}

/** A non-negative integer in a query string, as zod: `"10"` → 10; `"1.5"`, `"-1"`, `"1e3"` refused. */
export function queryInteger(min: number, max: number) {
  return z.pipe(
    z.pipe(
      z
        .string()
        .check(
          z.regex(/^\d{1,9}$/, 'must be a whole number'),
          z.describe(`A whole number from ${min} to ${max}`),
        ),
      z.transform(Number),
    ),
    z
      .int()
      .check(z.minimum(min, `must be at least ${min}`), z.maximum(max, `must be at most ${max}`)),
  );
}
