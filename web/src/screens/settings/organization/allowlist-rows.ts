import { checkRange } from './cidr';

/** One row of the allowlist editor: what is typed, and whether it was left once (then checked aloud). */
export interface RangeRow {
  readonly key: number;
  readonly text: string;
  readonly touched: boolean;
}

let nextKey = 0;

/** A row for `text`; stored ranges start touched (they are checked, and were valid). */
export function rangeRow(text = '', touched = false): RangeRow {
  nextKey += 1;
  return { key: nextKey, text, touched };
}

/** What the editor would send: each non-blank row trimmed, with the row it came from. */
export function rangesToSend(
  rows: readonly RangeRow[],
): ReadonlyArray<{ readonly key: number; readonly range: string }> {
  return rows.flatMap((row) =>
    row.text.trim() === '' ? [] : [{ key: row.key, range: row.text.trim() }],
  );
}

/** Why a row would be refused, in the service's words; null for a blank or valid row. */
export function rowProblem(row: RangeRow): string | null {
  if (row.text.trim() === '') return null;
  const checked = checkRange(row.text.trim());
  return checked.ok ? null : checked.problem;
}

/**
 * The service's 400 names entries by their place in what was sent
 * (`settings.ip_allowlist.3`); this gives each back to its row, as blank
 * rows were not sent. Fields naming the list as a whole are not a row's.
 */
export function problemsByRow(
  fields: ReadonlyArray<{ readonly path: string; readonly message: string }>,
  sent: ReadonlyArray<{ readonly key: number }>,
): ReadonlyMap<number, string> {
  const problems = new Map<number, string>();
  for (const field of fields) {
    const match = /^settings\.ip_allowlist\.(\d+)$/.exec(field.path);
    const row = match ? sent[Number(match[1])] : undefined;
    if (row) problems.set(row.key, field.message);
  }
  return problems;
}
