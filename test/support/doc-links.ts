import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, relative, resolve, sep } from 'node:path';
import MarkdownIt from 'markdown-it';

/**
 * The references the repository's own docs make, and which of them lead
 * nowhere (issue 23 item 4). Read by test/unit/docs/links.test.ts; kept apart so
 * the rules are tried on small made-up trees as well as on the real one.
 *
 * What is a reference:
 * - every link and image in README.md and the pages under docs/, as markdown-it parses
 *   them (inline, reference-style and autolinks; nothing inside code; raw
 *   HTML such as `<a href>` is not read, and the docs use none);
 * - every `docs/<name>.md`, with an optional `#anchor`, named in a source file
 *   under functions/, layers/, lib/, bin/, test/, web/ or .ci/ (comments and
 *   strings alike: a script that writes or reads a page names it the same way).
 *
 * How each is resolved:
 * - URLs with a scheme (`https:`, `mailto:`) or `//` are external: skipped;
 * - a link is relative to its Markdown file's folder, a path starting with `/`
 *   to the repository root (GitHub reads both so), and a source mention of
 *   `docs/…` always to the repository root;
 * - a link that climbs out of the repository (`../shared/spec/…` from
 *   README.md) is checked beside the repository, where the shared folder sits
 *   on developer machines and in CI, when the folder it first enters exists
 *   there; a checkout without that folder has nothing to check it against, so
 *   the link is skipped, never passed as if checked;
 * - an `#anchor` on a Markdown page (or alone, for the page itself) must be
 *   one of the page's heading slugs, made by GitHub's rule ({@link HeadingSlugger});
 *   anchors on other files (`#L10` on source) are not checked.
 */

export interface Reference {
  /** Repository-relative file that makes the reference. */
  readonly file: string;
  /** 1-based line of the reference in that file. */
  readonly line: number;
  /** As written (a link's destination after markdown-it's normalisation). */
  readonly target: string;
}

export interface BrokenReference extends Reference {
  readonly reason: string;
}

/** Folders whose source files may name docs/*.md; web/ and .ci/ when present. */
export const SOURCE_FOLDERS = ['functions', 'layers', 'lib', 'bin', 'test', 'web', '.ci'] as const;

const SOURCE_EXTENSIONS = new Set(['', '.ts', '.tsx', '.js', '.cjs', '.mjs', '.sh', '.html']);
const SKIPPED_FOLDERS = new Set(['node_modules', 'cdk.out', '.data', 'dist', 'build']);

/**
 * GitHub's heading anchors, as github-slugger makes them (the library GitHub's
 * own rule is copied into): the heading's text is lower-cased, every character
 * in a removed Unicode category is dropped, and each space becomes a hyphen
 * (runs are not collapsed, ends are not trimmed). Removed: other numbers,
 * every punctuation but connector punctuation (`_`) and `-`, symbols,
 * controls, format and private-use characters, unassigned code points and
 * separators other than the plain space; letters that Unicode counts as
 * alphabetic are kept whatever their category. A slug already given on the
 * page gets `-1`, `-2` … (skipping any suffix a heading already took).
 */
export class HeadingSlugger {
  private readonly taken = new Map<string, number>();

  slug(text: string): string {
    const base = slugOf(text);
    let slug = base;
    while (this.taken.has(slug)) {
      const count = (this.taken.get(base) ?? 0) + 1;
      this.taken.set(base, count);
      slug = `${base}-${count}`;
    }
    this.taken.set(slug, 0);
    return slug;
  }
}

const REMOVED = /[\p{No}\p{Pd}\p{Ps}\p{Pe}\p{Pi}\p{Pf}\p{Po}\p{S}\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Z}]/gu;
const ALPHABETIC = /\p{Alphabetic}/u;

export function slugOf(text: string): string {
  return text
    .toLowerCase()
    .replace(REMOVED, (c) => (c === ' ' || c === '-' || ALPHABETIC.test(c) ? c : ''))
    .replace(/ /g, '-');
}

const markdown = new MarkdownIt({ html: true, linkify: false });

/**
 * A heading's text as GitHub renders it before slugging: text, inline code's
 * contents, link and emphasis text; HTML tags and images contribute nothing.
 */
function headingText(inline: MarkdownIt.Token): string {
  let text = '';
  for (const child of inline.children ?? []) {
    if (child.type === 'text' || child.type === 'code_inline' || child.type === 'text_special') {
      text += child.content;
    } else if (child.type === 'softbreak' || child.type === 'hardbreak') {
      text += ' ';
    }
  }
  return text.trim();
}

export interface ParsedPage {
  readonly anchors: ReadonlySet<string>;
  readonly links: readonly Reference[];
}

const pages = new Map<string, ParsedPage>();

/** A Markdown file's heading anchors and the links it makes, each with its line. */
export function parsePage(root: string, path: string): ParsedPage {
  const cached = pages.get(path);
  if (cached) return cached;
  const source = readFileSync(path, 'utf8');
  const lines = source.split('\n');
  const tokens = markdown.parse(source, {});
  const slugger = new HeadingSlugger();
  const anchors = new Set<string>();
  const links: Reference[] = [];
  const file = relative(root, path).split(sep).join('/');
  // Inline tokens in table cells carry no line map: the row's is used.
  let block: [number, number] = [0, lines.length];
  tokens.forEach((token, index) => {
    if (token.map) block = token.map as [number, number];
    if (token.type !== 'inline') return;
    if (tokens[index - 1]?.type === 'heading_open') anchors.add(slugger.slug(headingText(token)));
    let line = block[0];
    for (const child of token.children ?? []) {
      if (child.type === 'softbreak' || child.type === 'hardbreak') line += 1;
      const attribute =
        child.type === 'link_open'
          ? child.attrGet('href')
          : child.type === 'image'
            ? child.attrGet('src')
            : null;
      if (attribute === null) continue;
      const target = String(attribute);
      // A code span over two lines hides a line break from the count: the
      // line is the first in the block from the count on that shows the target.
      const shown = [target, safeDecode(target)];
      let at = line;
      while (at < block[1] && !shown.some((s) => lines[at]?.includes(s))) at += 1;
      links.push({ file, line: (at < block[1] ? at : line) + 1, target });
    }
  });
  const page = { anchors, links };
  pages.set(path, page);
  return page;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

const EXTERNAL = /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i;

/**
 * Why a target leads nowhere, or null when it resolves (or is skipped by the
 * rules above). `page` is the referring Markdown file (relative paths start
 * in its folder, a lone `#anchor` is looked up in it), or for a source
 * mention a stand-in file at the repository root.
 */
function problemWith(root: string, page: string, target: string): string | null {
  const from = dirname(page);
  if (EXTERNAL.test(target)) return null;
  const hash = target.indexOf('#');
  const pathPart = safeDecode(hash < 0 ? target : target.slice(0, hash)).replace(/\?.*$/, '');
  const anchor = hash < 0 ? null : safeDecode(target.slice(hash + 1));
  const path =
    pathPart === '' ? null : resolve(pathPart.startsWith('/') ? root : from, `.${sep}${pathPart}`);
  if (path !== null) {
    const inside = relative(root, path);
    if (inside === '..' || inside.startsWith(`..${sep}`)) {
      // Outside the repository: checked only where the folder it enters is there.
      const entered = join(dirname(root), inside.split(sep)[1] ?? '');
      if (!existsSync(entered)) return null;
    }
    if (!existsSync(path)) return 'no such file';
  }
  if (anchor === null || anchor === '') return null;
  const anchored = path ?? page;
  if (extname(anchored).toLowerCase() !== '.md' || statSync(anchored).isDirectory()) return null;
  if (!parsePage(root, anchored).anchors.has(anchor)) return `no heading makes #${anchor}`;
  return null;
}

/** README.md and every page under docs/, sub-folders included (docs/decisions/, docs/deployment/). */
export function markdownFiles(root: string): string[] {
  const pages: string[] = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      if (entry.isDirectory()) walk(join(folder, entry.name));
      else if (entry.isFile() && entry.name.endsWith('.md')) pages.push(join(folder, entry.name));
    }
  };
  const docs = join(root, 'docs');
  if (existsSync(docs)) walk(docs);
  return [join(root, 'README.md'), ...pages].filter((path) => existsSync(path));
}

/** Text files under the source folders, node_modules and build output left out. */
export function sourceFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (entry.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(entry.name)) walk(join(folder, entry.name));
      } else if (entry.isFile() && SOURCE_EXTENSIONS.has(extname(entry.name))) {
        found.push(join(folder, entry.name));
      }
    }
  };
  for (const folder of SOURCE_FOLDERS) {
    const path = join(root, folder);
    if (existsSync(path) && statSync(path).isDirectory()) walk(path);
  }
  return found.sort();
}

/**
 * `docs/<name>.md` with an optional `#anchor`, not inside a longer path or a
 * URL (`https://example.com/docs/x.md`, `site/docs/x.md`); `../docs/<name>.md`, as
 * a test reaching the page from its own folder writes it, counts.
 */
const DOCS_MENTION =
  /(?<![\w./:@-])(?:\.\.\/)*docs\/([\w.-]+(?:\/[\w.-]+)*?\.md)(?![\w/-]|\.\w)(?:#([\w-]+))?/g;

/** Every docs/*.md a source file names, with its line. */
export function sourceMentions(root: string, path: string): Reference[] {
  const file = relative(root, path).split(sep).join('/');
  const mentions: Reference[] = [];
  readFileSync(path, 'utf8')
    .split('\n')
    .forEach((text, index) => {
      for (const match of text.matchAll(DOCS_MENTION)) {
        const anchor = match[2] ? `#${match[2]}` : '';
        mentions.push({ file, line: index + 1, target: `docs/${match[1]}${anchor}` });
      }
    });
  return mentions;
}

/** Every broken reference in the repository at `root`, in file and line order. */
export function brokenReferences(root: string): BrokenReference[] {
  pages.clear();
  const broken: BrokenReference[] = [];
  for (const path of markdownFiles(root)) {
    for (const link of parsePage(root, path).links) {
      const reason = problemWith(root, path, link.target);
      if (reason) broken.push({ ...link, reason });
    }
  }
  for (const path of sourceFiles(root)) {
    for (const mention of sourceMentions(root, path)) {
      const reason = problemWith(root, join(root, 'source'), mention.target);
      if (reason) broken.push({ ...mention, reason });
    }
  }
  return broken;
}

/** One line per broken reference: `file:line: target (reason)`. */
export function listBroken(broken: readonly BrokenReference[]): string {
  return broken.map((b) => `${b.file}:${b.line}: ${b.target} (${b.reason})`).join('\n');
}
