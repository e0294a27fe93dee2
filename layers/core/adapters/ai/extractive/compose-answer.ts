import { NO_ANSWER_TEXT } from '../../../domain/no-answer';
import { analyze } from '../../../domain/retrieval/text-analysis';
import { estimateTokens, firstEstimatedTokens } from '../../../domain/retrieval/token-estimate';
import { HEADING_QUOTE_SEPARATOR } from '../../../domain/retrieval/verbatim';
import type { ScoredCandidate } from './pick-units';

/**
 * Writing the picked units as the answer: Markdown quotes, each part cited,
 * in their documents' order, within the token budget.
 */

/** A code block is quoted with at most this many of its lines (the ones that match best). */
const MAX_CODE_LINES = 12;
/**
 * The answer: as many of the picked units as fit in `maxTokens`, grouped by
 * source (the source with the best unit first) and in each source's own
 * order, so the quotes read in the order their documents tell them. When
 * the best unit alone does not fit, it is cut short rather than replaced by
 * a weaker one that happens to be shorter.
 */
export function composeAnswer(picked: readonly ScoredCandidate[], maxTokens: number): string {
  const [best] = picked;
  if (!best) return '';
  // A term described by several quoted units is named once, before the first.
  const named = new Set<string>();
  const inReadingOrder = [...picked].sort(
    (a, b) => a.source.number - b.source.number || a.unit.index - b.unit.index,
  );
  const termShown = new Set<ScoredCandidate>();
  for (const candidate of inReadingOrder) {
    const key = `${candidate.source.number}:${candidate.unit.term}`;
    if (candidate.unit.term !== undefined && named.has(key)) termShown.add(candidate);
    named.add(key);
  }
  const quotes = picked.map((candidate) => ({
    candidate,
    text: quoteOf(candidate, termShown.has(candidate)),
  }));
  const [first] = quotes;
  if (!first) return '';
  if (estimateTokens(render([first])) > maxTokens) {
    return truncateQuote(plainQuoteOf(best), best.source.number, maxTokens);
  }
  const kept = [first];
  for (const quote of quotes.slice(1)) {
    if (estimateTokens(render([...kept, quote])) <= maxTokens) kept.push(quote);
  }
  return render(kept);
}

interface Quote {
  readonly candidate: ScoredCandidate;
  readonly text: string;
}

function render(quotes: readonly Quote[]): string {
  const sourceOrder = [...new Set(quotes.map((quote) => quote.candidate.source.number))];
  const ordered = [...quotes].sort(
    (a, b) =>
      sourceOrder.indexOf(a.candidate.source.number) -
        sourceOrder.indexOf(b.candidate.source.number) ||
      a.candidate.unit.index - b.candidate.unit.index,
  );
  let answer = '';
  for (const [index, quote] of ordered.entries()) {
    if (index === 0) answer = quote.text;
    else {
      // Code and lists stand apart; sentences run on as prose.
      const block = quote.text.includes('\n') || ordered[index - 1]?.text.includes('\n');
      answer += `${block ? '\n\n' : ' '}${quote.text}`;
    }
  }
  return answer;
}

/**
 * The unit as the answer quotes it, in Markdown, every part cited: a
 * sentence or item followed by `[n]`; the items a sentence introduces as a
 * list, each cited; a code block fenced after the sentence that introduces
 * it (which cites it), or followed by its own citation when it stands
 * alone. A long code block is cut to the lines around what the question
 * matches, and the heading that names the unit's subject leads it when the
 * unit does not name it. Fences and bullets are presentation: the words
 * between them are the passage's own (domain/retrieval/verbatim.ts).
 */
function quoteOf(candidate: ScoredCandidate, termShown = false): string {
  const { unit } = candidate;
  const marker = `[${candidate.source.number}]`;
  const prose = unit.parts.slice(0, unit.parts.length - unit.codeLines);
  const code = bestCodeWindow(
    unit.parts.slice(unit.parts.length - unit.codeLines),
    candidate.terms,
  );
  const [first, ...items] = prose;
  const lines: string[] = [];
  // The term on its own line, its description under it: both the passage's own words.
  if (unit.term !== undefined && !termShown) lines.push(`${unit.term} ${marker}`);
  if (first !== undefined) {
    const lead = candidate.leadingHeading
      ? `${candidate.leadingHeading}${HEADING_QUOTE_SEPARATOR}${first}`
      : first;
    lines.push(`${lead} ${marker}`, ...items.map((item) => `- ${item} ${marker}`));
  }
  if (code.length > 0) {
    lines.push('```', ...code, '```');
    if (first === undefined) lines.push(marker);
  }
  return lines.join('\n');
}

/** At most MAX_CODE_LINES consecutive lines of a code block: the first window holding the most distinct terms. */
function bestCodeWindow(lines: readonly string[], terms: ReadonlySet<string>): string[] {
  if (lines.length <= MAX_CODE_LINES) return [...lines];
  const lineTerms = lines.map((line) => analyze(line).filter((term) => terms.has(term)));
  let bestStart = 0;
  let bestCount = -1;
  for (let start = 0; start + MAX_CODE_LINES <= lines.length; start += 1) {
    const count = new Set(lineTerms.slice(start, start + MAX_CODE_LINES).flat()).size;
    if (count > bestCount) {
      bestCount = count;
      bestStart = start;
    }
  }
  return lines.slice(bestStart, bestStart + MAX_CODE_LINES);
}

/** The unit's words on one line, for cutting short: no fences or bullets to leave unclosed. */
function plainQuoteOf(candidate: ScoredCandidate): string {
  const text = candidate.unit.parts.join(' ');
  return candidate.leadingHeading
    ? `${candidate.leadingHeading}${HEADING_QUOTE_SEPARATOR}${text}`
    : text;
}

/**
 * The longest start of the quote, on a word boundary, that fits with
 * ` [n]`; when not even one word fits, the budget's first tokens
 * (`max_tokens` is a hard limit, as it is for a provider's model).
 */
function truncateQuote(text: string, source: number, maxTokens: number): string {
  const quoteWords = text.split(' ');
  // No ellipsis: the quote stays a verbatim start of the unit.
  const shorten = (count: number) => `${quoteWords.slice(0, count).join(' ')} [${source}]`;
  const best = shorten(
    longestFit(quoteWords.length, (count) => estimateTokens(shorten(count)) <= maxTokens),
  );
  return estimateTokens(best) <= maxTokens ? best : firstEstimatedTokens(text, maxTokens);
}

/** The text itself when it fits in `maxTokens`, else its longest start that fits with `…` (or, failing that, its first tokens). */
export function fitToTokens(text: string, maxTokens: number): string {
  if (estimateTokens(text) <= maxTokens) return text;
  if (estimateTokens(NO_ANSWER_TEXT) <= maxTokens && text.startsWith(NO_ANSWER_TEXT)) {
    return NO_ANSWER_TEXT;
  }
  const textWords = text.split(' ');
  const shorten = (count: number) => `${textWords.slice(0, count).join(' ')}…`;
  const best = shorten(
    longestFit(textWords.length, (count) => estimateTokens(shorten(count)) <= maxTokens),
  );
  return estimateTokens(best) <= maxTokens ? best : firstEstimatedTokens(text, maxTokens);
}

/** The largest count in 1…total that `fits` (binary search; 1 when none does). */
function longestFit(total: number, fits: (count: number) => boolean): number {
  let low = 1;
  let high = total;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(middle)) low = middle;
    else high = middle - 1;
  }
  return low;
}
