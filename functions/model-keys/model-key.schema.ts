import * as z from 'zod/mini';
import { MODEL_KEY_LIMITS, MODEL_KEY_PROVIDERS } from '../../layers/core/domain/model-key';
import { paginationQuery } from '../../layers/core/http/pagination.schema';

/**
 * `POST /api/v1/model-keys`. The key is printable ASCII without
 * spaces (what every provider issues; it travels in an HTTP header). The
 * endpoint's rules (custom only, public https) are checked by the use
 * case, which resolves and calls it.
 */
export const createModelKeyBody = z.strictObject({
  provider: z.enum(MODEL_KEY_PROVIDERS),
  key: z
    .string()
    .check(
      z.minLength(MODEL_KEY_LIMITS.keyMin),
      z.maxLength(MODEL_KEY_LIMITS.keyMax),
      z.regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces'),
    ),
  endpoint: z.optional(
    z.string().check(z.trim(), z.minLength(1), z.maxLength(MODEL_KEY_LIMITS.endpointMax)),
  ),
  name: z.optional(
    z.nullable(z.string().check(z.trim(), z.minLength(1), z.maxLength(MODEL_KEY_LIMITS.nameMax))),
  ),
});

export const listModelKeysQuery = z.strictObject(paginationQuery);

/**
 * A model key as returned: never the key, only its last four characters,
 * and the agents that answer with it, by name.
 */
export const modelKeyResource = z.object({
  id: z.string(),
  name: z.nullable(z.string()),
  provider: z.enum(MODEL_KEY_PROVIDERS),
  endpoint: z.nullable(z.string()),
  last4: z.string(),
  created_at: z.string(),
  agents: z.array(z.object({ id: z.string(), name: z.string() })),
});

export const modelKeyList = z.object({
  model_keys: z.array(modelKeyResource),
  total: z.int(),
  limit: z.int(),
  offset: z.int(),
});
