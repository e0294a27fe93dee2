/**
 * A man page as `man` renders it to text (`MANWIDTH=80 man --nh --nj -l
 * page | col -bx`) turned into plain Markdown, so the answers eval can upload
 * manuals the way users upload READMEs. It only re-marks what the layout
 * already says:
 *
 * - a line at the left margin (NAME, OPTIONS…) is a `##` section heading;
 *   a line indented by fewer than five spaces is a `###` subsection;
 * - a block whose first short line is followed by deeper-indented lines is
 *   an option or keyword and its description (`-L, --location`, then what
 *   it does): the first line becomes an inline-code paragraph, the rest a
 *   paragraph;
 * - a block indented deeper than the text before it (an example command)
 *   becomes a fenced code block;
 * - everything else is a paragraph, dedented, its Markdown characters escaped
 *   so the text reads as the manual wrote it.
 *
 * The running header and footer lines (`CURL(1) … CURL(1)`) are dropped.
 */

interface Line {
  readonly indent: number;
  readonly text: string;
}

const indentOf = (line: string): number => line.length - line.trimStart().length;

/** Text that Markdown would otherwise read as markup, escaped to stay literal. */
export function escapeMarkdownText(line: string): string {
  const escaped = line
    .replace(/\\/g, '\\\\')
    .replace(/([`*[\]])/g, '\\$1')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
  // Line starts that open a heading, list or quote, and lines a setext underline would turn into headings.
  if (/^(#|[-+*] |\d+[.)] )/.test(escaped)) return `\\${escaped}`;
  if (/^[=-]+$/.test(escaped)) return `\\${escaped}`;
  return escaped;
}

function inlineCode(text: string): string {
  const fence = text.includes('`') ? '``' : '`';
  return `${fence}${fence === '``' ? ` ${text} ` : text}${fence}`;
}

function blocksOf(text: string): Line[][] {
  const lines = text.replace(/\r/g, '').split('\n');
  // The running header (first line) and footer (last non-empty line) repeat the page's name and date.
  const nonEmpty = lines.map((line, index) => ({ line, index })).filter(({ line }) => line.trim());
  const header = nonEmpty[0]?.index;
  const footer = nonEmpty.length > 1 ? nonEmpty[nonEmpty.length - 1]?.index : undefined;
  const blocks: Line[][] = [];
  let current: Line[] = [];
  lines.forEach((raw, index) => {
    if (index === header || index === footer) return;
    const line = raw.trimEnd();
    if (line === '') {
      if (current.length > 0) blocks.push(current);
      current = [];
      return;
    }
    current.push({ indent: indentOf(line), text: line.trim() });
  });
  if (current.length > 0) blocks.push(current);
  return blocks;
}

const paragraph = (lines: readonly Line[]): string =>
  lines.map((line) => escapeMarkdownText(line.text)).join('\n');

function codeBlock(lines: readonly Line[]): string {
  const least = Math.min(...lines.map((line) => line.indent));
  const body = lines.map((line) => `${' '.repeat(line.indent - least)}${line.text}`).join('\n');
  return `\`\`\`\n${body}\n\`\`\``;
}

/** The Markdown of a man page rendered to plain text (see the module comment). */
export function manToMarkdown(rendered: string, title: string): string {
  const out: string[] = [`# ${escapeMarkdownText(title)}`];
  // The indent of the body text the next block is measured against; undefined right after a heading.
  let base: number | undefined;
  const blocks = blocksOf(rendered);
  for (let next = blocks.shift(); next !== undefined; next = blocks.shift()) {
    const block = next;
    const [first, second] = block;
    if (first === undefined) continue;
    if (first.indent === 0) {
      out.push(`## ${escapeMarkdownText(first.text)}`);
      // A section's first lines may follow its heading without a blank line.
      if (block.length > 1) blocks.unshift(block.slice(1));
      base = undefined;
      continue;
    }
    if (first.indent < 5) {
      out.push(`### ${escapeMarkdownText(first.text)}`);
      // As with sections, the subsection's text may start on the next line.
      if (block.length > 1) blocks.unshift(block.slice(1));
      base = undefined;
      continue;
    }
    // mdoc sets a short option and the start of its description on one line: `-v      Verbose mode.`
    const sameLine = /^(-\S+(?: \S+)?)\s{2,}(\S.*)$/.exec(first.text);
    if (sameLine?.[1] !== undefined && sameLine[2] !== undefined) {
      out.push(inlineCode(sameLine[1]));
      out.push(paragraph([{ indent: first.indent, text: sameLine[2] }, ...block.slice(1)]));
      base = second?.indent ?? first.indent;
      continue;
    }
    // An option may have several forms, one per line, before its description (`-L port:host:hostport`…).
    const termLines = block.findIndex((line) => line.indent !== first.indent);
    const terms = termLines > 0 ? block.slice(0, termLines) : [];
    const description = block[termLines];
    const isTerm =
      description !== undefined &&
      description.indent > first.indent &&
      terms.length <= 4 &&
      terms.every((line) => line.text.length <= 60 && !/[.:,;]$/.test(line.text));
    if (isTerm) {
      out.push(terms.map((line) => inlineCode(line.text)).join('\\\n'));
      out.push(paragraph(block.slice(termLines)));
      base = description.indent;
      continue;
    }
    if (base !== undefined && first.indent > base) {
      out.push(codeBlock(block));
      continue;
    }
    out.push(paragraph(block));
    base = first.indent;
  }
  return `${out.join('\n\n')}\n`;
}
