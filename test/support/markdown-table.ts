const NUMERIC = /^[-\d.,]+( %| s)?$/;

/**
 * A Markdown table laid out as Biome formats Markdown (cells padded to the
 * column width, dashes across it), so a freshly written docs/benchmarks.md or
 * docs/quality.md passes `biome check` as written. Columns whose cells are all
 * numbers (or "—" for none) are right-aligned.
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
