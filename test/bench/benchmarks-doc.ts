import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

const PREAMBLE = `# Benchmarks

Figures measured by \`npm run bench\` (test/bench/). Each benchmark owns one
section between \`<!-- bench:<name>:start -->\` and \`<!-- bench:<name>:end -->\`
and rewrites only that section when it runs; the rest of this file is kept as
it is. The figures are from the machine and date each section names: compare
them with each other, not with production.
`;

export function sectionMarkers(name: string): { start: string; end: string } {
  return { start: `<!-- bench:${name}:start -->`, end: `<!-- bench:${name}:end -->` };
}

/**
 * Puts `body` between the section's markers in `document`, replacing what was
 * there; appends the section when the markers are missing.
 */
export function replaceSection(document: string, name: string, body: string): string {
  const { start, end } = sectionMarkers(name);
  const block = `${start}\n${body.trim()}\n${end}`;
  const from = document.indexOf(start);
  const to = document.indexOf(end, from);
  if (from >= 0 && to >= 0) {
    return `${document.slice(0, from)}${block}${document.slice(to + end.length)}`;
  }
  return `${document.trimEnd()}\n\n${block}\n`;
}

/** Writes one section of the benchmarks document, creating the file if needed. */
export function writeSection(file: string, name: string, body: string): void {
  const current = existsSync(file) ? readFileSync(file, 'utf8') : PREAMBLE;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, replaceSection(current, name, body));
}

/** The command that reproduces a section, as the section names it (`--quick`, `--only <name>`). */
export function benchCommand(
  section: string,
  options: { readonly quick: boolean; readonly only: boolean },
): string {
  const flags = [options.quick ? '--quick' : '', options.only ? `--only ${section}` : '']
    .filter(Boolean)
    .join(' ');
  return flags ? `npm run bench -- ${flags}` : 'npm run bench';
}
