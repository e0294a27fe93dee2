/**
 * A cited passage cut into what the answer quotes and what it does not, so
 * the quoted parts can be marked. The service sends the quoted parts as
 * `quoted_ranges`: `[start, end)` offsets in UTF-16 code units (JavaScript
 * string indices) into the passage.
 */

export interface QuotedRange {
  readonly start: number;
  readonly end: number;
}

export interface PassagePart {
  readonly text: string;
  readonly quoted: boolean;
}

/**
 * The passage as alternating unquoted and quoted parts, none empty, which
 * joined give the passage back. Ranges are taken as they come, not trusted:
 * each is clamped to the passage, empty or reversed ones are dropped,
 * overlapping and touching ones become one, and a bound that would split a
 * surrogate pair (an emoji, a rare character) is moved outwards to keep it whole.
 *
 * @example quotedParts('Keep it short.', [{ start: 5, end: 7 }])
 *   // [{ text: 'Keep ', quoted: false }, { text: 'it', quoted: true }, { text: ' short.', quoted: false }]
 */
export function quotedParts(text: string, ranges: readonly QuotedRange[]): PassagePart[] {
  const parts: PassagePart[] = [];
  let last = 0;
  for (const range of normalizedRanges(text, ranges)) {
    if (range.start > last) parts.push({ text: text.slice(last, range.start), quoted: false });
    parts.push({ text: text.slice(range.start, range.end), quoted: true });
    last = range.end;
  }
  if (last < text.length) parts.push({ text: text.slice(last), quoted: false });
  return parts;
}

/** The ranges clamped to the text, whole characters, sorted, with overlapping and adjacent ones merged. */
export function normalizedRanges(text: string, ranges: readonly QuotedRange[]): QuotedRange[] {
  const clamped = ranges
    .filter((range) => Number.isFinite(range.start) && Number.isFinite(range.end))
    .map((range) => ({
      start: wholeCharacterStart(text, clamp(Math.floor(range.start), 0, text.length)),
      end: wholeCharacterEnd(text, clamp(Math.ceil(range.end), 0, text.length)),
    }))
    .filter((range) => range.start < range.end)
    .sort((a, b) => a.start - b.start || a.end - b.end);
  const merged: Array<{ start: number; end: number }> = [];
  for (const range of clamped) {
    const previous = merged.at(-1);
    if (previous && range.start <= previous.end) previous.end = Math.max(previous.end, range.end);
    else merged.push({ ...range });
  }
  return merged;
}

function clamp(value: number, least: number, most: number): number {
  return Math.min(most, Math.max(least, value));
}

/** True when `index` falls between the two halves of a surrogate pair. */
function splitsPair(text: string, index: number): boolean {
  if (index <= 0 || index >= text.length) return false;
  const before = text.charCodeAt(index - 1);
  const after = text.charCodeAt(index);
  return before >= 0xd800 && before <= 0xdbff && after >= 0xdc00 && after <= 0xdfff;
}

function wholeCharacterStart(text: string, index: number): number {
  return splitsPair(text, index) ? index - 1 : index;
}

function wholeCharacterEnd(text: string, index: number): number {
  return splitsPair(text, index) ? index + 1 : index;
}
