/**
 * A linear-time guard against pathologically nested HTML.
 *
 * Tree-building HTML parsers do work proportional to the depth of the open
 * element stack on each tag (htmlparser2 keeps it with `unshift`; parse5
 * scans it for scope checks), so a page of 5 MiB of unclosed `<div>`s costs
 * minutes of CPU. No real page nests that deep — Blink's parser flattens
 * anything below depth 512 — so documents deeper than
 * {@link MAX_HTML_NESTING} are refused before parsing.
 */

/** Deepest element nesting parsed; twice Blink's own parser cap. */
export const MAX_HTML_NESTING = 1_024;

/** Elements without content: never on the open-element stack. */
const VOID_ELEMENTS = new Set([
  'area',
  'base',
  'basefont',
  'br',
  'col',
  'command',
  'embed',
  'frame',
  'hr',
  'img',
  'input',
  'isindex',
  'keygen',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);

/** Elements whose content is text up to their end tag (tags inside do not count). */
const RAW_TEXT_ELEMENTS = new Set(['script', 'style', 'textarea', 'title']);

/** Starting a block element ends an open paragraph. */
const CLOSES_P = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'details',
  'div',
  'dl',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'table',
  'ul',
]);

/** Which open element (on top of the stack) a start tag implicitly ends. */
function impliedlyClosed(name: string, open: string): boolean {
  if (open === 'p') return CLOSES_P.has(name);
  switch (name) {
    case 'li':
      return open === 'li';
    case 'dd':
    case 'dt':
      return open === 'dd' || open === 'dt';
    case 'option':
      return open === 'option';
    case 'tr':
      return open === 'tr' || open === 'td' || open === 'th';
    case 'td':
    case 'th':
      return open === 'td' || open === 'th';
    default:
      return false;
  }
}

/**
 * Whether the elements of `html` nest deeper than `limit`, estimated the way
 * a forgiving parser builds its tree (void elements, implied ends, an end
 * tag closing everything opened after its start tag, raw text skipped).
 * Runs in time linear in the input, whatever its shape.
 */
export function nestsDeeperThan(html: string, limit: number = MAX_HTML_NESTING): boolean {
  const stack: string[] = [];
  const openCount = new Map<string, number>();
  const push = (name: string) => {
    stack.push(name);
    openCount.set(name, (openCount.get(name) ?? 0) + 1);
  };
  const pop = () => {
    const name = stack.pop();
    if (name !== undefined) openCount.set(name, (openCount.get(name) ?? 1) - 1);
    return name;
  };

  let position = 0;
  // The next `>` is found once and reused by every tag before it: no rescanning.
  let nextGreaterThan = -1;
  for (;;) {
    const lessThan = html.indexOf('<', position);
    if (lessThan === -1) return false;
    if (html.startsWith('!--', lessThan + 1)) {
      const end = html.indexOf('-->', lessThan + 4);
      if (end === -1) return false;
      position = end + 3;
      continue;
    }
    const closing = html.charCodeAt(lessThan + 1) === 0x2f; // '/'
    const nameStart = lessThan + (closing ? 2 : 1);
    let nameEnd = nameStart;
    while (
      nameEnd < html.length &&
      isNameCharacter(html.charCodeAt(nameEnd), nameEnd === nameStart)
    ) {
      nameEnd += 1;
    }
    if (nameEnd === nameStart) {
      position = lessThan + 1;
      continue;
    }
    if (nextGreaterThan < nameEnd) nextGreaterThan = html.indexOf('>', nameEnd);
    if (nextGreaterThan === -1) return false;
    position = nextGreaterThan + 1;
    const name = html.slice(nameStart, nameEnd).toLowerCase();

    if (closing) {
      // An end tag closes its element and everything opened inside it; a stray one is ignored.
      if ((openCount.get(name) ?? 0) > 0) {
        for (let popped = pop(); popped !== name && popped !== undefined; popped = pop()) {
          // keep popping: elements left open inside `name` end with it
        }
      }
      continue;
    }
    for (
      let top = stack.at(-1);
      top !== undefined && impliedlyClosed(name, top);
      top = stack.at(-1)
    ) {
      pop();
    }
    if (VOID_ELEMENTS.has(name)) continue;
    push(name);
    if (stack.length > limit) return true;
    if (RAW_TEXT_ELEMENTS.has(name)) {
      const end = new RegExp(`</${name}`, 'ig');
      end.lastIndex = position;
      const match = end.exec(html);
      if (!match) return false;
      position = match.index;
    }
  }
}

/** ASCII letters first; then letters, digits, `-`, `_`, `:` and `.`. */
function isNameCharacter(code: number, first: boolean): boolean {
  const letter = (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
  if (first) return letter;
  return (
    letter ||
    (code >= 0x30 && code <= 0x39) ||
    code === 0x2d ||
    code === 0x5f ||
    code === 0x3a ||
    code === 0x2e
  );
}
