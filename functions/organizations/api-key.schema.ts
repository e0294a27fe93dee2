import * as z from 'zod/mini';
import { API_KEY_LIMITS } from '../../layers/core/domain/api-key-record';
import { ENVIRONMENTS } from '../../layers/core/domain/environments';
import { SCOPES } from '../../layers/core/domain/scopes';
import { paginationQuery } from '../../layers/core/http/pagination.schema';

/**
 * Spec, "API key (managed in the web application)": a name, scopes among
 * Read, Write, Execute, Admin, and the environment, Live or Test (either
 * case). A deployment accepts only keys of its own environment, so the
 * environment defaults to the deployment's and any other is refused.
 */
export const createApiKeyBody = z.strictObject({
  name: z
    .string()
    .check(z.trim(), z.minLength(1, 'must not be empty'), z.maxLength(API_KEY_LIMITS.nameMax)),
  scopes: z
    .array(z.enum(SCOPES))
    .check(z.minLength(1, 'give at least one scope'), z.maxLength(SCOPES.length * 2)),
  environment: z.optional(z.pipe(z.string().check(z.toLowerCase()), z.enum(ENVIRONMENTS))),
});

export const listApiKeysQuery = z.strictObject(paginationQuery);

/** A key as listed: never its value or hash, its last four characters instead. */
export const apiKeyResource = z.object({
  id: z.string(),
  name: z.string(),
  scopes: z.array(z.enum(SCOPES)),
  environment: z.enum(ENVIRONMENTS),
  last4: z.string(),
  created_at: z.string(),
  /** To the minute; null until the key is first used. */
  last_used_at: z.nullable(z.string()),
});

/** Creation's answer: the only time the key's value is shown. */
export const createdApiKeyResource = z.extend(apiKeyResource, { key: z.string() });

export const apiKeyList = z.object({
  keys: z.array(apiKeyResource),
  /**
   * The deployment's environment, which every key made here carries,
   * so the web application can say so before a key is made.
   */
  environment: z.enum(ENVIRONMENTS),
  total: z.int(),
  limit: z.int(),
  offset: z.int(),
});
