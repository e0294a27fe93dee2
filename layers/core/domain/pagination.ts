/** Every list takes `limit` (default 50, max 200) and `offset` (default 0). */
export const PAGINATION = { defaultLimit: 50, maxLimit: 200, maxOffset: 1_000_000 } as const;

export interface PageRequest {
  readonly limit: number;
  readonly offset: number;
}

export interface Page<T> {
  readonly items: readonly T[];
  readonly total: number;
}

/** Cuts one page out of an ordered list. */
export function pageOf<T>(all: readonly T[], request: PageRequest): Page<T> {
  return { items: all.slice(request.offset, request.offset + request.limit), total: all.length };
}
