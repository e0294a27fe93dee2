import * as z from 'zod';
import { API_KEY_LIMITS } from '../../layers/core/domain/api-key-record';
import { ENVIRONMENTS } from '../../layers/core/domain/environments';
import { SCOPES } from '../../layers/core/domain/scopes';
import { paginationQuery } from '../../layers/core/http/pagination.schema';

/**
 * Spec, "API key (managed in the web application)": a name, scopes among
 * Read, Write, Execute, Admin, and the environment, Live or Test (either
 * case). D10: a deployment accepts only keys of its own environment, so the
 * environment defaults to the deployment's and any other is refused (P78).
 */
export const createApiKeyBody = z.strictObject({
  name: z.string().trim().min(1, 'must not be empty').max(API_KEY_LIMITS.nameMax),
  scopes: z
    .array(z.enum(SCOPES))
    .min(1, 'give at least one scope')
    .max(SCOPES.length * 2),
  environment: z
    .string()
    .transform((value) => value.toLowerCase())
    .pipe(z.enum(ENVIRONMENTS))
    .optional(),
});

export const listApiKeysQuery = z.strictObject(paginationQuery);

/** A key as listed: never its value or hash (D10), its last four characters instead. */
export const apiKeyResource = z.object({
  id: z.string(),
  name: z.string(),
  scopes: z.array(z.enum(SCOPES)),
  environment: z.enum(ENVIRONMENTS),
  last4: z.string(),
  created_at: z.string(),
  /** P75: to the minute; null until the key is first used. */
  last_used_at: z.string().nullable(),
});

/** Creation's answer: the only time the key's value is shown (D10, D11). */
export const createdApiKeyResource = apiKeyResource.extend({
  key: z.string(),
});

export const apiKeyList = z.object({
  keys: z.array(apiKeyResource),
  total: z.int(),
  limit: z.int(),
  offset: z.int(),
});
