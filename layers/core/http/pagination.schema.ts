import { PAGINATION } from '../domain/pagination';
import { queryInteger } from './validation';

/** D2: `limit` 1–200 (default 50), `offset` ≥ 0 (default 0); out of range is 400, never clamped. */
export const paginationQuery = {
  limit: queryInteger(1, PAGINATION.maxLimit).optional(),
  offset: queryInteger(0, PAGINATION.maxOffset).optional(),
};

export function pageRequest(query: { limit?: number | undefined; offset?: number | undefined }) {
  return { limit: query.limit ?? PAGINATION.defaultLimit, offset: query.offset ?? 0 };
}
