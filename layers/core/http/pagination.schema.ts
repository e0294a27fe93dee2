import * as z from 'zod/mini';
import { PAGINATION } from '../domain/pagination';
import { queryInteger } from './validation';

/** `limit` 1–200 (default 50), `offset` ≥ 0 (default 0); out of range is 400, never clamped. */
export const paginationQuery = {
  limit: z.optional(queryInteger(1, PAGINATION.maxLimit)),
  offset: z.optional(queryInteger(0, PAGINATION.maxOffset)),
};

export function pageRequest(query: { limit?: number | undefined; offset?: number | undefined }) {
  return { limit: query.limit ?? PAGINATION.defaultLimit, offset: query.offset ?? 0 };
}
