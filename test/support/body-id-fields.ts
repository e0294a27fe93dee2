import * as z from 'zod/mini';
import type { Route } from '../../layers/core/http/route';
import { OPERATIONS_BY_FAMILY } from '../../lib/openapi';

type JsonSchema = {
  readonly properties?: Record<string, JsonSchema>;
  readonly items?: JsonSchema;
  readonly anyOf?: readonly JsonSchema[];
  readonly oneOf?: readonly JsonSchema[];
  readonly allOf?: readonly JsonSchema[];
};

/**
 * Fields that name a resource though their name does not say so: an
 * OpenAI-compatible client names the agent as its `model`.
 */
const NAMED_OTHERWISE: Readonly<Record<string, readonly string[]>> = {
  'POST /api/v1/openai/chat/completions': ['model'],
};

/** A field that names a resource: `agent_id`, `data_source_ids`, `from_interactions.agent_id`. */
const NAMES_AN_ID = /_ids?$/;

function idFieldsOf(schema: JsonSchema, prefix: string, found: Set<string>): void {
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const path = prefix ? `${prefix}.${name}` : name;
    if (NAMES_AN_ID.test(name)) found.add(path);
    idFieldsOf(property, path, found);
  }
  if (schema.items) idFieldsOf(schema.items, prefix, found);
  for (const alternative of [
    ...(schema.anyOf ?? []),
    ...(schema.oneOf ?? []),
    ...(schema.allOf ?? []),
  ]) {
    idFieldsOf(alternative, prefix, found);
  }
}

/**
 * The body fields of a route that carry an id, read from the zod schema its
 * operation validates the body with (the one the OpenAPI document is built
 * from): every field, at any depth, whose name ends in `_id` or `_ids`, as a
 * dotted path (`from_interactions.agent_id`; array items add nothing).
 */
export function bodyIdFields(route: Route): string[] {
  const operation = OPERATIONS_BY_FAMILY[route.family]?.[route.operation];
  if (!operation) throw new Error(`No operation ${route.operation} in ${route.family}`);
  const schema = z.toJSONSchema(operation.body, { io: 'input', unrepresentable: 'any' });
  const found = new Set<string>(NAMED_OTHERWISE[`${route.method} ${route.path}`] ?? []);
  idFieldsOf(schema as JsonSchema, '', found);
  return [...found].sort();
}
