/**
 * Chunking that respects structure (issue 3): a document is cut into chunks
 * of at most `maxTokens` tokens (tokens.ts), section by section so every
 * chunk has one heading path, keeping paragraphs whole where they fit,
 * falling back to whole sentences where they do not, and splitting inside a
 * sentence only when that one sentence is longer than a chunk. Consecutive
 * chunks of a section share up to `overlapTokens` tokens of whole sentences,
 * so a passage cut at a boundary is still found with its context.
 */
import { createHash } from 'node:crypto';
import { countTokens, MAX_ENCODED_RUN } from './tokens';

/**
 * What the chunker reads. `ParsedDocument` (ports/document.port.ts) has this
 * shape; it is restated here because the domain imports no ports
 * (.dependency-cruiser.cjs, domain-is-pure).
 */
export interface ChunkableDocument {
  readonly title: string;
  readonly url: string | null;
  readonly sections: readonly ChunkableSection[];
}

export interface ChunkableSection {
  /** Headings above this text, outermost first. */
  readonly headingPath: readonly string[];
  /** Paragraphs of plain text, in order. */
  readonly paragraphs: readonly string[];
}

/** One piece of a document, ready to embed. Title and URL are the document's, kept beside it by the caller. */
export interface DocumentChunk {
  /** Document text only: no title or heading is prefixed (they travel as fields). */
  readonly text: string;
  readonly headingPath: readonly string[];
  /** 0, 1, 2… in document order. */
  readonly position: number;
  /** `countTokens(text)`. */
  readonly tokenCount: number;
}

export interface ChunkingOptions {
  /** Upper bound of a chunk's `tokenCount`. */
  readonly maxTokens: number;
  /** Up to this many tokens of whole sentences are repeated at the start of the next chunk. */
  readonly overlapTokens: number;
}

/** 300 tokens with 50 of overlap: well inside every embedding model's input, small enough to cite precisely. */
export const DEFAULT_CHUNKING: ChunkingOptions = { maxTokens: 300, overlapTokens: 50 };

/** Sentence boundaries by Unicode's rules (UAX #29); English locale so results do not depend on the machine's. */
const SENTENCES = new Intl.Segmenter('en', { granularity: 'sentence' });

/**
 * Text is segmented this many code units at a time. V8 builds every segment
 * with a copy of the whole input (its `input` property), so segmenting a
 * long paragraph at once is quadratic in time and memory (an 8 MB paragraph:
 * 7 s; 20 MB ran out of memory); window by window it is linear (issue 14).
 */
const SEGMENT_WINDOW = 16_384;

/**
 * The sentences of `paragraph` as `[start, end)` offsets, segmented window
 * by window. The last sentence of a window may go on past it, so the next
 * window starts where that sentence starts; a sentence longer than a whole
 * window is cut at the window's end (it is longer than any chunk, and split
 * anyway).
 */
function* sentenceSpans(paragraph: string): Generator<readonly [number, number]> {
  let start = 0;
  while (start < paragraph.length) {
    const end = Math.min(paragraph.length, start + SEGMENT_WINDOW);
    let last: Intl.SegmentData | undefined;
    for (const segment of SENTENCES.segment(paragraph.slice(start, end))) {
      if (last) yield [start + last.index, start + segment.index];
      last = segment;
    }
    if (!last) return;
    if (end === paragraph.length || last.index === 0) {
      yield [start + last.index, end];
      start = end;
    } else {
      start += last.index;
    }
  }
}

/** A sentence, or a part of one too long for a chunk: the unit chunks are built of. */
interface Piece {
  /** The paragraph the piece is a slice of: chunks are cut from it, never rebuilt (issue 10, verbatim citations). */
  readonly source: string;
  /** `[start, end)` of the piece in `source`, without surrounding whitespace. */
  readonly start: number;
  readonly end: number;
  readonly tokens: number;
  /** Index of the paragraph (within its section) the piece comes from. */
  readonly paragraph: number;
  /** First piece of its paragraph. */
  readonly opensParagraph: boolean;
}

/**
 * Cuts a document into chunks in document order.
 *
 * @example
 * const chunks = chunkDocument({
 *   title: 'Refunds',
 *   url: 'https://example.com/refunds',
 *   sections: [{ headingPath: ['Policy'], paragraphs: ['Refunds take 5 days. Ask support.'] }],
 * });
 * // [{ text: 'Refunds take 5 days. Ask support.', headingPath: ['Policy'], position: 0, tokenCount: 10 }]
 */
export function chunkDocument(
  doc: ChunkableDocument,
  options: ChunkingOptions = DEFAULT_CHUNKING,
): DocumentChunk[] {
  assertValidOptions(options);
  const chunks: DocumentChunk[] = [];
  for (const section of doc.sections) {
    const pieces = sectionPieces(section, options.maxTokens);
    for (const group of packSection(pieces, options)) {
      const text = render(group);
      chunks.push({
        text,
        headingPath: [...section.headingPath],
        position: chunks.length,
        tokenCount: countTokens(text),
      });
    }
  }
  return chunks;
}

/**
 * SHA-256 (hex) of a document's normalised content: title, URL, headings and
 * paragraphs, with Unicode NFC, whitespace collapsed and empty paragraphs
 * dropped. A re-sync compares it with the indexed hash and skips documents
 * whose hash did not change, so they are not re-embedded (issue 3).
 */
export function documentHash(doc: ChunkableDocument): string {
  const sections = doc.sections
    .map((section) => [
      section.headingPath.map(normalise),
      section.paragraphs.map(normalise).filter((paragraph) => paragraph.length > 0),
    ])
    .filter(([, paragraphs]) => (paragraphs?.length ?? 0) > 0);
  const content = JSON.stringify([normalise(doc.title), doc.url ?? null, sections]);
  return createHash('sha256').update(content, 'utf8').digest('hex');
}

function normalise(text: string): string {
  return text.normalize('NFC').replace(/\s+/g, ' ').trim();
}

function assertValidOptions({ maxTokens, overlapTokens }: ChunkingOptions): void {
  if (!Number.isInteger(maxTokens) || maxTokens < 1) {
    throw new RangeError(`maxTokens must be a positive integer, got ${maxTokens}`);
  }
  if (!Number.isInteger(overlapTokens) || overlapTokens < 0 || overlapTokens >= maxTokens) {
    throw new RangeError(
      `overlapTokens must be an integer from 0 to maxTokens - 1, got ${overlapTokens}`,
    );
  }
}

/** The section's sentences (or parts of over-long ones), in order. */
function sectionPieces(section: ChunkableSection, maxTokens: number): Piece[] {
  const pieces: Piece[] = [];
  section.paragraphs.forEach((paragraph, index) => {
    let opensParagraph = true;
    for (const [from, to] of sentenceSpans(paragraph)) {
      const [start, end] = trimmed(paragraph, from, to);
      if (start === end) continue;
      const tokens = countTokens(paragraph.slice(start, end));
      const parts: (readonly [number, number])[] =
        tokens <= maxTokens ? [[start, end]] : splitOverlong(paragraph, start, end, maxTokens);
      for (const [partStart, partEnd] of parts) {
        const partTokens =
          parts.length === 1 ? tokens : countTokens(paragraph.slice(partStart, partEnd));
        pieces.push({
          source: paragraph,
          start: partStart,
          end: partEnd,
          tokens: partTokens,
          paragraph: index,
          opensParagraph,
        });
        opensParagraph = false;
      }
    }
  });
  return pieces;
}

/** `[from, to)` without the whitespace at either end. */
function trimmed(text: string, from: number, to: number): readonly [number, number] {
  let start = from;
  let end = to;
  while (start < end && isSpace(text, start)) start += 1;
  while (end > start && isSpace(text, end - 1)) end -= 1;
  return [start, end];
}

function isSpace(text: string, index: number): boolean {
  return /\s/.test(text[index] ?? '');
}

/**
 * Splits the sentence `text[from, to)`, longer than `maxTokens`, into parts
 * that fit: at the last word boundary that fits, or, for a single word
 * longer than a chunk (a URL, a base64 blob), at the last character that
 * fits. Parts are `[start, end)` offsets into `text`, without surrounding
 * whitespace.
 *
 * Linear in the sentence (issue 14): each part is looked for only within
 * the longest text `maxTokens` tokens can cover, and no per-character table
 * of the whole sentence is built, so a 20 MB run without spaces costs time
 * and memory in proportion to its length.
 */
function splitOverlong(
  text: string,
  from: number,
  to: number,
  maxTokens: number,
): (readonly [number, number])[] {
  const sentence = text.slice(0, to);
  const reach = maxTokens * (MAX_ENCODED_RUN + 2);
  const parts: (readonly [number, number])[] = [];
  let start = skipSpaces(sentence, from);
  while (start < sentence.length) {
    const partFrom = start;
    const limit = Math.min(sentence.length, partFrom + reach);
    const fits = (end: number) => countTokens(sentence.slice(partFrom, end)) <= maxTokens;
    // Code point ends after `partFrom`, never inside a surrogate pair.
    const ends: Candidates = {
      length: limit - partFrom,
      at: (index) => codePointEnd(sentence, partFrom + index + 1),
    };
    // The longest prefix that fits; one code point is a few tokens at most, so it is taken regardless.
    const longest = longestFitting(ends, fits) ?? codePointEnd(sentence, partFrom + 1);
    const wordEnd = lastWordEnd(sentence, partFrom, longest);
    const cut =
      longest === sentence.length || wordEnd === undefined || !fits(wordEnd) ? longest : wordEnd;
    const [partStart, partEnd] = trimmed(sentence, partFrom, cut);
    if (partEnd > partStart) parts.push([partStart, partEnd]);
    start = skipSpaces(sentence, cut);
  }
  return parts;
}

/** An ascending list of offsets, as an array or computed on demand. */
interface Candidates {
  readonly length: number;
  at(index: number): number | undefined;
}

/** `end`, moved past the low half of a surrogate pair it would split. */
function codePointEnd(text: string, end: number): number {
  const code = text.charCodeAt(end - 1);
  return code >= 0xd800 && code <= 0xdbff && end < text.length ? end + 1 : end;
}

function skipSpaces(text: string, from: number): number {
  let index = from;
  while (index < text.length && /\s/.test(text[index] ?? '')) index += 1;
  return index;
}

/** The largest end of a word in `(from, to]`: a non-space followed by a space or the end of the text. */
function lastWordEnd(text: string, from: number, to: number): number | undefined {
  for (let end = to; end > from; end -= 1) {
    const closesWord = end === text.length || /\s/.test(text[end] ?? '');
    if (closesWord && !/\s/.test(text[end - 1] ?? '')) return end;
  }
  return undefined;
}

/**
 * The largest candidate from index `from` on that `fits`, where `fits`
 * holds for a prefix of the candidates. Galloping, then binary search: the
 * cost grows with the answer, not with the number of candidates, so cutting
 * a very long sentence stays linear-logarithmic.
 */
function longestFitting(
  ascending: Candidates,
  fits: (candidate: number) => boolean,
  from = 0,
): number | undefined {
  let good = from - 1;
  let bad = ascending.length;
  for (let step = 1; good + step < bad; step *= 2) {
    const index = good + step;
    if (fits(ascending.at(index) ?? Number.NaN)) {
      good = index;
    } else {
      bad = index;
      break;
    }
  }
  while (bad - good > 1) {
    const middle = (good + bad) >> 1;
    if (fits(ascending.at(middle) ?? Number.NaN)) good = middle;
    else bad = middle;
  }
  return good >= from ? ascending.at(good) : undefined;
}

/**
 * A chunk's text: each paragraph's pieces as one slice of that paragraph
 * (the text between two sentences is the document's own, never a space put
 * back between rebuilt parts), paragraphs separated by a blank line.
 */
function render(pieces: readonly Piece[]): string {
  let text = '';
  let first: Piece | undefined;
  let previous: Piece | undefined;
  for (const piece of pieces) {
    if (first !== undefined && previous !== undefined && piece.paragraph !== previous.paragraph) {
      text += `${first.source.slice(first.start, previous.end)}\n\n`;
      first = undefined;
    }
    first ??= piece;
    previous = piece;
  }
  if (first !== undefined && previous !== undefined) {
    text += first.source.slice(first.start, previous.end);
  }
  return text;
}

/**
 * Token estimate of `pieces` joined: their own counts plus one per paragraph
 * break. Byte-pair encodings are not additive, so a chunk's real count is
 * checked once before it is emitted (see `packSection`).
 */
function estimate(pieces: readonly Piece[], from = 0, to = pieces.length): number {
  let total = 0;
  for (let index = from; index < to; index += 1) {
    const piece = pieces[index];
    if (piece === undefined) continue;
    total += piece.tokens;
    if (index > from && piece.opensParagraph) total += 1;
  }
  return total;
}

/** Index just past the paragraph that `pieces[start]` belongs to. */
function paragraphEnd(pieces: readonly Piece[], start: number): number {
  const paragraph = pieces[start]?.paragraph;
  let end = start;
  while (end < pieces.length && pieces[end]?.paragraph === paragraph) end += 1;
  return end;
}

/**
 * Groups a section's pieces into chunks.
 *
 * `current` holds the chunk being built: first `carried` pieces of overlap
 * from the previous chunk, then new pieces. A paragraph that fits in a chunk
 * is never split: when it does not fit in what is left, the chunk is emitted
 * and the paragraph starts the next one (after as much overlap as still
 * leaves room for it). Pieces of paragraphs longer than a chunk fill chunks
 * sentence by sentence.
 */
function packSection(pieces: readonly Piece[], options: ChunkingOptions): Piece[][] {
  const { maxTokens, overlapTokens } = options;
  const groups: Piece[][] = [];
  let current: Piece[] = [];
  let carried = 0;
  let next = 0;

  const emit = () => {
    // The real count, once per chunk: drop overlap first, then give back the last pieces.
    while (current.length > 1 && countTokens(render(current)) > maxTokens) {
      if (carried > 0) {
        current.shift();
        carried -= 1;
      } else {
        current.pop();
        next -= 1;
      }
    }
    groups.push(current);
    current = overlapOf(current, overlapTokens);
    carried = current.length;
  };

  while (next < pieces.length) {
    const piece = pieces[next];
    if (piece === undefined) break;
    const hasNew = current.length > carried;
    if (piece.opensParagraph) {
      const end = paragraphEnd(pieces, next);
      const fitsAlone = estimate(pieces, next, end) <= maxTokens;
      if (fitsAlone && estimate([...current, ...pieces.slice(next, end)]) > maxTokens) {
        if (hasNew) {
          emit();
          continue;
        }
        if (carried > 0) {
          current.shift();
          carried -= 1;
          continue;
        }
      }
    }
    if (estimate([...current, piece]) > maxTokens) {
      if (hasNew) {
        emit();
        continue;
      }
      if (carried > 0) {
        current.shift();
        carried -= 1;
        continue;
      }
    }
    current.push(piece);
    next += 1;
  }
  if (current.length > carried) emit();
  return groups;
}

/**
 * The trailing whole pieces of a chunk worth at most `overlapTokens`, never
 * the whole chunk (the next chunk must move on).
 */
function overlapOf(chunk: readonly Piece[], overlapTokens: number): Piece[] {
  let start = chunk.length;
  while (start > 1 && estimate(chunk, start - 1) <= overlapTokens) start -= 1;
  return chunk.slice(start);
}

/**
 * What to embed for a chunk: the document title and heading path on their
 * own lines above the text, so a chunk that never names its subject ("It
 * takes 5 days.") is still found by it. The stored chunk text stays as it is.
 *
 * @example
 * textToEmbed('Refunds', ['Policy', 'Timing'], 'It takes 5 days.');
 * // 'Refunds\nPolicy > Timing\nIt takes 5 days.'
 */
export function textToEmbed(
  documentTitle: string,
  headingPath: readonly string[],
  text: string,
): string {
  return [documentTitle.trim(), headingPath.join(' > ').trim(), text]
    .filter((line) => line.length > 0)
    .join('\n');
}
