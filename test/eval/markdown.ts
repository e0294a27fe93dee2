import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const NUMERIC = /^[-\d.,]+( %| s)?$/;

/**
 * A Markdown table laid out as Biome formats Markdown (cells padded to the
 * column width, dashes across it, numeric columns right-aligned), so a fresh
 * docs/quality.md passes `biome check` as written.
 */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const columns = header.map((title, column) => {
    const cells = rows.map((row) => row[column] ?? '');
    return {
      width: Math.max(3, title.length, ...cells.map((cell) => cell.length)),
      right: cells.length > 0 && cells.every((cell) => NUMERIC.test(cell) || cell === '—'),
    };
  });
  const line = (cells: readonly string[]) =>
    `| ${columns
      .map(({ width, right }, column) => {
        const cell = cells[column] ?? '';
        return right ? cell.padStart(width) : cell.padEnd(width);
      })
      .join(' | ')} |`;
  const rule = `| ${columns
    .map(({ width, right }) => (right ? `${'-'.repeat(width - 1)}:` : '-'.repeat(width)))
    .join(' | ')} |`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

/** Replaces the text between `<!-- eval:<name>:start -->` and `…:end -->`, or appends the section. */
export function writeSection(file: string, preamble: string, name: string, body: string): void {
  const start = `<!-- eval:${name}:start -->`;
  const end = `<!-- eval:${name}:end -->`;
  const current = existsSync(file) ? readFileSync(file, 'utf8') : preamble;
  const block = `${start}\n${body.trim()}\n${end}`;
  const from = current.indexOf(start);
  const to = current.indexOf(end, from);
  const next =
    from >= 0 && to >= 0
      ? `${current.slice(0, from)}${block}${current.slice(to + end.length)}`
      : `${current.trimEnd()}\n\n${block}\n`;
  writeFileSync(file, next);
}
