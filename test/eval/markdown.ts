import { existsSync, readFileSync, writeFileSync } from 'node:fs';

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
