/**
 * A passage cut into the pieces an answer can quote. Documentation carries
 * its answers in structure as much as in sentences: the command sits in the
 * code block after "Install it with:", the option in a list item, the
 * figure in a table row. So the pieces are sentences, list items and code
 * blocks, and a sentence that introduces a code block or a list ("…your
 * config file would look like this:") is quoted together with it.
 *
 * The chunker joins a passage's paragraphs with a blank line and keeps a
 * code block's lines (domain/retrieval/chunker.ts), so blocks are told apart
 * by blank lines, and a block of several lines is code.
 */
import { stripCitations } from '../../../domain/citations';
import { collapseWhitespace } from '../../../domain/retrieval/verbatim';
import { hasNumber, identifiersIn } from './question-focus';

export type UnitKind =
  /** A sentence of prose. */
  | 'sentence'
  /** A sentence with the code block or list items it introduces. */
  | 'lead'
  /** A code block, or a one-line command. */
  | 'code'
  /** A list item, table row or other short line that is not a sentence. */
  | 'item';

export interface PassageUnit {
  readonly kind: UnitKind;
  /** Position in its passage, for reading order. */
  readonly index: number;
  /**
   * What is quoted, each part verbatim from the passage: a sentence, an
   * item, or a code block's lines. Parts are shown on lines of their own.
   */
  readonly parts: readonly string[];
  /** How many parts are code, at the end of `parts` (a lead's code block, or a code unit). */
  readonly codeLines: number;
  /**
   * The term the unit describes, when its paragraph is a term's
   * description: a manual or README names an option on a line of its own
   * (`-L, --location`, `` `StrictHostKeyChecking` ``) and describes it in the
   * paragraphs under it, which never repeat the name. The answer quotes the
   * term line with the unit.
   */
  readonly term?: string;
}

/** Sentence boundaries by Unicode's rules, in a fixed locale so answers do not depend on the machine. */
const SENTENCES = new Intl.Segmenter('en', { granularity: 'sentence' });

/** A sentence that asks (`?`, or the full-width `？` of CJK text), closing quotes and brackets aside. */
const QUESTION_END = /[?？]["'”’)\]]*$/u;

/** A line that reads as a shell, Python or SQL prompt. */
const PROMPT = /^(?:\$|#|>>>|>|PS>|C:\\>|sql>|mysql>)\s/;

/** Characters that prose rarely holds and code always does. */
const CODE_SYMBOLS = /[=(){}[\];<>|&$\\/]/g;

/** Items longer than this are paragraphs, whatever their punctuation. */
const ITEM_MAX_WORDS = 30;

/** A list introduced by a sentence is quoted with at most this many of its items. */
const LEAD_MAX_ITEMS = 6;

/** Sentences and items shorter than this say nothing on their own ("Refund policy"). */
const MIN_WORDS = 3;

type BlockKind = 'prose' | 'code' | 'item';

/**
 * The passage's quotable units, in passage order. A sentence holding
 * bracketed numbers (footnotes) is left out: they would read as our
 * citations, and removing them would misquote it. So is a question: the one
 * a FAQ entry opens with matches the user's question best and answers
 * nothing.
 */
export function passageUnits(passage: string): PassageUnit[] {
  const blocks = passage
    .split(/\n[ \t]*\n/)
    .map((block) => block.replace(/^\n+|\n+$/g, ''))
    .filter((block) => block.trim() !== '');
  const kinds = blocks.map(blockKind);
  const units: PassageUnit[] = [];
  let term: string | undefined;
  const push = (kind: UnitKind, parts: string[], codeLines = 0) =>
    units.push({ kind, index: units.length, parts, codeLines, ...(term ? { term } : {}) });

  for (const [at, block] of blocks.entries()) {
    const kind = kinds[at];
    if (kind === 'code') {
      // An example inside a description still belongs to its term.
      if (quotableCode(block)) push('code', codeLinesOf(block), codeLinesOf(block).length);
      continue;
    }
    if (kind === 'item') {
      const item = collapseWhitespace(block).trim();
      term = undefined;
      const captioned = kinds[at + 1] === 'code' ? introducedBlocks(blocks, kinds, at, item) : null;
      if (isTermLine(item) && kinds[at + 1] === 'prose') term = item;
      else if (captioned && quotable(item, MIN_WORDS)) {
        // A caption over its example ("Undo commits permanently", then the commands).
        push('lead', [item, ...captioned.parts], captioned.codeLines);
      } else if (quotable(item, MIN_WORDS) || hasNumber(item)) push('item', [item]);
      continue;
    }
    const sentences = sentencesOf(block);
    for (const [position, sentence] of sentences.entries()) {
      const last = position === sentences.length - 1;
      const introduced = last ? introducedBlocks(blocks, kinds, at, sentence) : null;
      if (introduced) {
        push('lead', [sentence, ...introduced.parts], introduced.codeLines);
      } else if (quotable(sentence, MIN_WORDS)) {
        push('sentence', [sentence]);
      }
    }
  }
  return units;
}

function blockKind(block: string): BlockKind {
  if (block.includes('\n')) return readsAsProse(block) ? 'prose' : 'code';
  const text = block.trim();
  if (PROMPT.test(text)) return 'code';
  // A term line is symbol-heavy (`branch <name> [<stash>]`) but names what the next paragraph describes.
  if (isTermLine(text)) return 'item';
  const wordCount = text.split(/\s+/).length;
  const symbols = text.match(CODE_SYMBOLS)?.length ?? 0;
  const endsAsSentence = /[.!?。:]["'”’)\]]*$/u.test(text);
  if (!endsAsSentence && wordCount <= 8 && symbols >= 2) return 'code';
  if (!endsAsSentence && wordCount <= ITEM_MAX_WORDS) return 'item';
  return 'prose';
}

/**
 * A block of several lines is code, unless most of its lines are sentences
 * (a chat thread, an address, a poem kept line by line).
 */
function readsAsProse(block: string): boolean {
  const lines = codeLinesOf(block);
  const sentences = lines.filter(
    (line) => line.trim().split(/\s+/).length >= 5 && /[.!?。]["'”’)\]]*$/u.test(line.trim()),
  );
  return sentences.length * 2 >= lines.length || wrappedProse(lines);
}

/**
 * Text wrapped at a fixed width and kept in a block (an indented paragraph of
 * a README, a man page's text): its lines end mid-sentence, but nearly every
 * line is a run of plain words, which code's lines are not.
 */
function wrappedProse(lines: readonly string[]): boolean {
  const wordy = lines.filter((line) => {
    const tokens = line.trim().split(/\s+/);
    if (tokens.length < PROSE_LINE_MIN_WORDS || PROMPT.test(line.trim())) return false;
    const plain = tokens.filter((token) => PLAIN_WORD.test(token)).length;
    return plain >= tokens.length * PROSE_PLAIN_SHARE;
  });
  return wordy.length >= lines.length * PROSE_PLAIN_SHARE;
}

/** A word as prose writes it: letters, perhaps an apostrophe, then at most a punctuation mark or two. */
const PLAIN_WORD = /^["'“(]?[\p{L}][\p{L}'’-]*[.,;:!?)"'”]{0,2}$/u;
const PROSE_LINE_MIN_WORDS = 6;
const PROSE_PLAIN_SHARE = 0.8;

function codeLinesOf(block: string): string[] {
  return block.split('\n').filter((line) => line.trim() !== '');
}

/** Sentences of a prose block; its line breaks are a layout's, not sentence ends (text wrapped at 80 columns). */
function sentencesOf(block: string): string[] {
  const sentences: string[] = [];
  for (const { segment } of SENTENCES.segment(block.replace(/\n/g, ' '))) {
    const text = collapseWhitespace(segment).trim();
    if (text !== '') sentences.push(text);
  }
  return sentences;
}

/** A line that names options or identifiers and says nothing else (`-L, --location`, `` `item_depth` ``). */
function isTermLine(line: string): boolean {
  // Cheap refusals first: this runs on every block of every passage.
  if (line.length > TERM_LINE_MAX_LENGTH) return false;
  const [first = ''] = line.split(/\s/, 1);
  if (!first.startsWith('`') && identifiersIn(first).length === 0) return false;
  const named = identifiersIn(line);
  if (named.length === 0 || stripCitations(line) !== line) return false;
  // The line opens with the name it defines ("Example: curl -L …" shows one in use).
  if (!named.some((name) => line.startsWith(name))) return false;
  let rest = line;
  for (const name of named) rest = rest.replace(name, ' ');
  return rest.split(/[\s,;:|/()[\]=<>]+/).filter((word) => /\p{L}/u.test(word)).length <= 3;
}

/** Term lines are short: a name, perhaps its aliases and an argument. */
const TERM_LINE_MAX_LENGTH = 160;

/** Code holding `[0]`-like indexes would read as citations (`items[1]`): not quoted. */
function quotableCode(block: string): boolean {
  return stripCitations(block) === block;
}

function quotable(text: string, minWords: number): boolean {
  if (stripCitations(text) !== text) return false;
  if (QUESTION_END.test(text)) return false;
  const wordCount = text.split(' ').length;
  return wordCount >= minWords || identifiersIn(text).length > 0;
}

/**
 * What a paragraph's last sentence introduces: the code block right after
 * it, or (when it ends with a colon) the list items after it. Null when it
 * introduces nothing, or is not quotable itself.
 */
function introducedBlocks(
  blocks: readonly string[],
  kinds: readonly BlockKind[],
  at: number,
  sentence: string,
): { parts: string[]; codeLines: number } | null {
  if (!quotable(sentence, 2)) return null;
  const next = blocks[at + 1];
  if (next === undefined) return null;
  if (kinds[at + 1] === 'code') {
    // A blank line inside a code block splits it into blocks here: the
    // sentence introduces all of them ("[global] … [freeze] …").
    const lines: string[] = [];
    for (let index = at + 1; index < blocks.length && kinds[index] === 'code'; index += 1) {
      const block = blocks[index] ?? '';
      if (!quotableCode(block)) break;
      lines.push(...codeLinesOf(block));
    }
    return lines.length > 0 ? { parts: lines, codeLines: lines.length } : null;
  }
  if (!/:["'”’)\]]*$/u.test(sentence)) return null;
  const items: string[] = [];
  for (let index = at + 1; index < blocks.length && items.length < LEAD_MAX_ITEMS; index += 1) {
    if (kinds[index] !== 'item') break;
    items.push(collapseWhitespace(blocks[index] ?? '').trim());
  }
  return items.length > 0 ? { parts: items, codeLines: 0 } : null;
}
