import * as z from 'zod/mini';
import '../../layers/core/zod-english';
import { dataSourceResource } from '../data-sources/data-source.schema';

/** Callback: what the provider appends (others, such as Google's `scope`, are ignored). */
export const callbackQuery = z.object({
  state: z.optional(z.string().check(z.maxLength(4000))),
  code: z.optional(z.string().check(z.maxLength(4000))),
  error: z.optional(z.string().check(z.maxLength(200))),
});

export const startedConnection = z.object({
  authorization_url: z.string(),
  expires_at: z.string(),
});

export const disconnection = z.object({
  data_source: dataSourceResource,
  revoked_at_provider: z.boolean(),
  revocation_error: z.nullable(z.string()),
});
