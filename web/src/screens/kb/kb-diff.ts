import { diffLines, diffWords } from 'diff';

/** How two versions are compared: whole lines (Markdown's unit) or words within the text. */
export type DiffMode = 'lines' | 'words';

/** One piece of a comparison: text both versions have, or text only one has. */
export interface DiffPart {
  readonly kind: 'same' | 'added' | 'removed';
  readonly text: string;
}

/** A run of unchanged lines folded away, said as how many. */
export interface DiffFold {
  readonly kind: 'fold';
  readonly lines: number;
}

export type DiffRow = DiffPart | DiffFold;

export interface Comparison {
  /** null when the texts are too far apart to compare within the time allowed. */
  readonly rows: readonly DiffRow[] | null;
  /** Lines (or words) only the newer version has, and only the older one. */
  readonly added: number;
  readonly removed: number;
}

/** Unchanged lines kept on each side of a change; longer unchanged runs are folded. */
export const CONTEXT_LINES = 3;
/** jsdiff gives up after this long: 200,000 characters against as many, rewritten, stays usable. */
const DIFF_TIMEOUT_MS = 1500;

/**
 * Compares two versions' content with jsdiff: by lines, each line a
 * row, unchanged runs longer than twice `CONTEXT_LINES` folded to a count;
 * or by words, the text flowing with the changed words marked.
 */
export function compareTexts(older: string, newer: string, mode: DiffMode): Comparison {
  const changes =
    mode === 'lines'
      ? diffLines(withFinalNewline(older), withFinalNewline(newer), { timeout: DIFF_TIMEOUT_MS })
      : diffWords(older, newer, { timeout: DIFF_TIMEOUT_MS });
  if (!changes) return { rows: null, added: 0, removed: 0 };
  let added = 0;
  let removed = 0;
  const parts: DiffPart[] = [];
  for (const change of changes) {
    const kind = change.added ? 'added' : change.removed ? 'removed' : 'same';
    if (kind === 'added') added += countOf(change.value, mode);
    if (kind === 'removed') removed += countOf(change.value, mode);
    if (mode === 'lines') {
      for (const line of splitLines(change.value)) parts.push({ kind, text: line });
    } else {
      parts.push({ kind, text: change.value });
    }
  }
  return { rows: mode === 'lines' ? folded(parts) : parts, added, removed };
}

/** So that a last line without "\n" and the same line with one compare as equal. */
function withFinalNewline(text: string): string {
  return text === '' || text.endsWith('\n') ? text : `${text}\n`;
}

function splitLines(value: string): string[] {
  const lines = value.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function countOf(value: string, mode: DiffMode): number {
  return mode === 'lines' ? splitLines(value).length : (value.match(/\S+/g) ?? []).length;
}

/** Keeps `CONTEXT_LINES` unchanged lines around each change and folds the rest. */
function folded(parts: readonly DiffPart[]): DiffRow[] {
  const rows: DiffRow[] = [];
  let index = 0;
  while (index < parts.length) {
    const part = parts[index] as DiffPart;
    if (part.kind !== 'same') {
      rows.push(part);
      index += 1;
      continue;
    }
    let end = index;
    while (end < parts.length && parts[end]?.kind === 'same') end += 1;
    const run = parts.slice(index, end);
    const keepBefore = index === 0 ? 0 : CONTEXT_LINES;
    const keepAfter = end === parts.length ? 0 : CONTEXT_LINES;
    if (run.length > keepBefore + keepAfter + 1) {
      rows.push(...run.slice(0, keepBefore));
      rows.push({ kind: 'fold', lines: run.length - keepBefore - keepAfter });
      rows.push(...run.slice(run.length - keepAfter));
    } else {
      rows.push(...run);
    }
    index = end;
  }
  return rows;
}
