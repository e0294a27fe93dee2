/** Thrown when the work budget of `withinScanBudget` runs out (the code under test stops there). */
export class ScanBudgetExceeded extends Error {
  constructor(budget: number) {
    super(`more than ${budget} characters examined`);
    this.name = 'ScanBudgetExceeded';
  }
}

/**
 * Runs `act` while counting the characters it examines through the string
 * methods a scanner uses (`indexOf`, `startsWith`, `charCodeAt`, `slice`, and searches of
 * arrays),
 * and stops it with `ScanBudgetExceeded` once they pass `budget`: a bound on
 * work done rather than on time, so "linear on hostile input" holds on a
 * loaded machine and fails at once, not after minutes, for a quadratic scan.
 */
export function withinScanBudget<T>(budget: number, act: () => T): { result: T; examined: number } {
  const prototype = String.prototype;
  const original = {
    indexOf: prototype.indexOf,
    startsWith: prototype.startsWith,
    charCodeAt: prototype.charCodeAt,
    slice: prototype.slice,
  };
  const arrays = Array.prototype;
  const originalArray = {
    includes: arrays.includes,
    indexOf: arrays.indexOf,
    lastIndexOf: arrays.lastIndexOf,
  };
  let examined = 0;
  const spend = (characters: number) => {
    examined += Math.max(1, characters);
    if (examined > budget) throw new ScanBudgetExceeded(budget);
  };
  prototype.indexOf = function indexOf(this: string, search: string, from?: number) {
    const found = original.indexOf.call(this, search, from);
    const start = Math.max(0, from ?? 0);
    spend((found === -1 ? this.length : found + search.length) - start);
    return found;
  };
  prototype.startsWith = function startsWith(this: string, search: string, at?: number) {
    spend(search.length);
    return original.startsWith.call(this, search, at);
  };
  prototype.charCodeAt = function charCodeAt(this: string, index: number) {
    spend(1);
    return original.charCodeAt.call(this, index);
  };
  prototype.slice = function slice(this: string, start?: number, end?: number) {
    const part = original.slice.call(this, start, end);
    spend(part.length);
    return part;
  };
  // Searching a stack is work too: an end tag that looked through every open element would show.
  for (const name of ['includes', 'indexOf', 'lastIndexOf'] as const) {
    const search = originalArray[name] as (this: unknown[], ...args: unknown[]) => unknown;
    (arrays as unknown as Record<string, unknown>)[name] = function (
      this: unknown[],
      ...args: unknown[]
    ) {
      spend(this.length);
      return search.apply(this, args);
    };
  }
  try {
    return { result: act(), examined };
  } finally {
    Object.assign(prototype, original);
    Object.assign(arrays, originalArray);
  }
}
