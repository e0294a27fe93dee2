import { isDeepStrictEqual } from 'node:util';
import * as z from 'zod/mini';

export type JsonSchema = Record<string, unknown>;

/** What zod writes for `z.int()` with no bound of its own: the safe-integer range, no bound at all to a reader. */
const UNBOUNDED_MIN = Number.MIN_SAFE_INTEGER;
const UNBOUNDED_MAX = Number.MAX_SAFE_INTEGER;

/** Leaves an integer's real bounds and drops the safe-integer range zod fills in. */
function withoutSafeIntegerRange({ jsonSchema }: { jsonSchema: JsonSchema }): void {
  if (jsonSchema.minimum === UNBOUNDED_MIN) delete jsonSchema.minimum;
  if (jsonSchema.maximum === UNBOUNDED_MAX) delete jsonSchema.maximum;
}

/**
 * Converts zod schemas into the document's JSON Schemas, collecting every
 * named schema (component-names.ts) once under `components.schemas` and
 * pointing at it with `$ref` wherever it appears.
 */
export class SchemaComponents {
  readonly #schemas: Record<string, JsonSchema> = {};

  /** The JSON Schema of what a request sends (`input`) or a response carries (`output`). */
  json(schema: z.core.$ZodType, io: 'input' | 'output'): JsonSchema {
    const {
      $schema: _,
      $defs,
      ...rest
    } = z.toJSONSchema(schema, {
      io,
      unrepresentable: 'any',
      override: withoutSafeIntegerRange,
    }) as JsonSchema;
    for (const [name, definition] of Object.entries(($defs ?? {}) as Record<string, JsonSchema>)) {
      this.#add(name, toComponentRefs(definition));
    }
    return toComponentRefs(rest);
  }

  /** A schema written by hand (the legacy error shape, an event stream's events). */
  add(name: string, schema: JsonSchema): void {
    this.#add(name, schema);
  }

  get schemas(): Record<string, JsonSchema> {
    return Object.fromEntries(
      Object.keys(this.#schemas)
        .sort()
        .map((name) => [name, this.#schemas[name] ?? {}]),
    );
  }

  #add(name: string, schema: JsonSchema): void {
    const known = this.#schemas[name];
    if (known && !isDeepStrictEqual(known, schema)) {
      // One name, two shapes: a schema named for responses reused in a request, whose input differs.
      throw new Error(`Component schema ${name} has two different shapes`);
    }
    this.#schemas[name] = schema;
  }
}

function toComponentRefs(schema: JsonSchema): JsonSchema {
  return JSON.parse(
    JSON.stringify(schema).replaceAll('"#/$defs/', '"#/components/schemas/'),
  ) as JsonSchema;
}

/** A reference to a component schema. */
export const componentRef = (name: string): JsonSchema => ({
  $ref: `#/components/schemas/${name}`,
});
