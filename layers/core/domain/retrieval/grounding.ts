/**
 * How well an answer is grounded in the passages it cites, the same way for
 * every answerer (the offline one and hosted models): the answer is cut into
 * claims (its sentences, a fenced code block as one), each claim is checked
 * against the sources it cites, and the share of supported claims is the
 * answer's groundedness. The same check says which part of each source the
 * answer relies on (`quotedRanges`), for a client to highlight.
 *
 * A claim is supported by a source it cites when, after whitespace
 * normalization (verbatim.ts), it is a verbatim span of that source; or when
 * at least SUPPORT_SHARE of its idf-weighted content terms, and every one of
 * its numbers, occur in one window of consecutive sentences of that source.
 * A claim with no content terms ("Here is how:") is left out of the count.
 *
 * The cost is linear in the answer and the sources: each is segmented and
 * analyzed once, and a claim's terms are looked up in an inverted index of
 * the cited sources' sentences rather than compared with every window.
 */
import { citedSourceNumbers, stripCitations } from '../citations';
import { NO_ANSWER_TEXT } from '../no-answer';
import { analyze } from './text-analysis';
import { collapseWhitespace } from './verbatim';

/** A `[start, end)` range of UTF-16 code units (JavaScript string indices) in a source's text. */
export interface TextRange {
  readonly start: number;
  readonly end: number;
}

/** One claim of an answer: its text (markers removed), the sources it cites, and whether one supports it. */
export interface Claim {
  readonly text: string;
  /** The source numbers its markers name (1-based, `[n]` is `sources[n - 1]`). */
  readonly sources: readonly number[];
  readonly supported: boolean;
  /** Where the supporting passage is: the source's number and the range of its text. */
  readonly support?: { readonly source: number } & TextRange;
}

export interface Grounding {
  /** Supported claims over claims, in [0, 1], to 3 decimals; 1 when the answer makes no claim. */
  readonly groundedness: number;
  readonly claims: readonly Claim[];
  /** Source number → the sorted, merged ranges of its text that supported claims rely on. */
  readonly quotedRanges: ReadonlyMap<number, readonly TextRange[]>;
}

/** A source as grounding reads it: its text, numbered by its place in the list (from 1). */
export interface GroundingSource {
  readonly chunk_text: string;
}

/** Share of a claim's idf-weighted content terms one window must hold for it to be supported. */
export const SUPPORT_SHARE = 0.7;

/** Sentences on either side of a sentence that its window takes in. */
const WINDOW_REACH = 1;

/**
 * Built at the first answer grounded, not as the module loads: the first
 * `Intl` object of a process initializes ICU, about 10 ms, which a request
 * that is refused before it is answered should not pay at the function's init.
 */
let sentences: Intl.Segmenter | undefined;
function sentenceSegmenter(): Intl.Segmenter {
  sentences ??= new Intl.Segmenter('en', { granularity: 'sentence' });
  return sentences;
}

/** Markers at the start of a segment: they close the sentence before it (`… days. [1] Next …`). */
const LEADING_MARKERS = /^\s*(?:\[\d{1,4}(?:\s*,\s*\d{1,4})*\]\s*)+/;

const FENCE = /^[ \t]*(```|~~~)/;

/** Numbers as written (`30`, `2.5`, `1,000`), compared without their thousands separators. */
const NUMBER = /\d+(?:[.,]\d+)*/g;

/** List bullets and numbers, quote and heading marks a quoting answer may put before a source's words. */
const DECORATION_START = /^(?:[-*+>•]\s+|\d{1,3}[.)]\s+|#{1,6}\s+)+/;

/**
 * Words that carry no claim of their own beyond the index's stopwords, so
 * "Here is how:" or "You can do it like this:" claims nothing, and
 * "According to the documentation, …" claims only what follows. Stemmed as
 * the analyzer stems, to be compared with analyzed terms.
 */
const FUNCTION_WORDS =
  'here how what when where which who whom whose why also so thus hence then now just ' +
  'you your yours we our us i me my he she him her his its them those this these ' +
  'can could may might must shall should would do does did done doing have has had ' +
  'been being am were was would like follow following below above example ' +
  'yes ok okay note simply only very more most some any all each both either neither ' +
  'there therefore however moreover furthermore ' +
  // Words an answer uses to point at its sources rather than to claim something.
  'according source sources document documentation docs states stated says said mentions mentioned';

/** Analyzed at the first claim checked (the analyzer compiles its word pattern at its first use). */
let functionTerms: ReadonlySet<string> | undefined;
function isFunctionTerm(term: string): boolean {
  functionTerms ??= new Set(analyze(FUNCTION_WORDS));
  return functionTerms.has(term);
}

/** A claim's content terms: analyzed words, function words left out, each once. */
function contentTermsOf(text: string): string[] {
  return [...new Set(analyze(text))].filter((term) => !isFunctionTerm(term));
}

/** An answer that claims nothing (the non-answers). */
export const NO_CLAIMS: Grounding = { groundedness: 1, claims: [], quotedRanges: new Map() };

/**
 * Grounds `answerText` (its citations numbered `[n]` for `sources[n - 1]`)
 * in `sources`. The honest non-answer makes no claim and scores 1.
 *
 * @example
 * groundAnswer('Refunds take 5 days. [1]', [{ chunk_text: 'Refunds take 5 days.' }]).groundedness // 1
 */
export function groundAnswer(answerText: string, sources: readonly GroundingSource[]): Grounding {
  if (isNonAnswer(answerText)) return NO_CLAIMS;
  const units = claimUnits(answerText, sources.length);
  const cited = new Set(units.flatMap((unit) => unit.sources));
  const index = new SourceIndex(sources, cited);

  const claims: Claim[] = [];
  for (const unit of units) {
    const terms = contentTermsOf(unit.text);
    if (terms.length === 0) continue;
    const support = index.support(unit, terms);
    claims.push({
      text: unit.text,
      sources: unit.sources,
      supported: support !== undefined,
      ...(support ? { support } : {}),
    });
  }
  if (claims.length === 0) return NO_CLAIMS;
  const supported = claims.filter((claim) => claim.supported).length;
  return {
    groundedness: Math.round((supported / claims.length) * 1000) / 1000,
    claims,
    quotedRanges: mergedRanges(claims),
  };
}

/** The non-answer, whole or cut short by max_tokens (then ending in `…`), or followed by what was searched. */
function isNonAnswer(text: string): boolean {
  const trimmed = text.trim();
  if (trimmed.startsWith(NO_ANSWER_TEXT)) return true;
  const cut = trimmed.replace(/…$/, '');
  return cut.length > 0 && cut !== trimmed && NO_ANSWER_TEXT.startsWith(cut);
}

interface ClaimUnit {
  readonly text: string;
  readonly sources: readonly number[];
  /** A fenced code block: compared line breaks and all, after the normalization. */
  readonly code: boolean;
}

/**
 * The answer's claims in order: each fenced code block whole, every other
 * line by sentences (after its list bullet or number, which is no sentence
 * of its own). A sentence's citations are the markers in it and those right
 * after it (`… days. [1]`). An introduction and what it introduces are read
 * together: a code block without its own marker is checked against what the
 * sentence before it cites, and a sentence ending in a colon without its own
 * marker ("To install it:"), or a heading, against what the next claim cites.
 */
function claimUnits(answer: string, sourceCount: number): ClaimUnit[] {
  const offered = Array.from({ length: sourceCount }, (_, index) => index + 1);
  const units: { text: string; markers: string; code: boolean; heading?: boolean }[] = [];
  const lines = answer.split('\n');
  for (let at = 0; at < lines.length; at += 1) {
    const line = lines[at] ?? '';
    const fence = FENCE.exec(line);
    if (fence) {
      const body: string[] = [];
      let end = at + 1;
      while (end < lines.length && !(lines[end] ?? '').trimStart().startsWith(fence[1] ?? '```'))
        end += 1;
      body.push(...lines.slice(at + 1, end));
      const closing = lines[end] ?? '';
      units.push({ text: body.join('\n'), markers: closing, code: true });
      at = end;
      continue;
    }
    const heading = HEADING.test(line);
    for (const { segment } of sentenceSegmenter().segment(line.replace(DECORATION_START, ''))) {
      const previous = units.at(-1);
      const leading = previous ? (LEADING_MARKERS.exec(segment)?.[0] ?? '') : '';
      if (previous && leading) previous.markers += leading;
      const rest = segment.slice(leading.length);
      if (rest.trim().length > 0) units.push({ text: rest, markers: '', code: false, heading });
    }
  }
  const cites = units.map((unit) => citedSourceNumbers(unit.text + unit.markers, offered));
  // Introductions (headings, a sentence ending in a colon) take what follows them cites, read
  // from the end so a heading over an introduction gets it too; then code blocks what precedes.
  for (let position = units.length - 2; position >= 0; position -= 1) {
    const unit = units[position];
    if (unit && !unit.code && (cites[position]?.length ?? 0) === 0 && introduces(unit))
      cites[position] = cites[position + 1] ?? [];
  }
  for (let position = 1; position < units.length; position += 1) {
    if (units[position]?.code && (cites[position]?.length ?? 0) === 0)
      cites[position] = cites[position - 1] ?? [];
  }
  return units.map((unit, position) => ({
    text: claimText(unit.text, unit.code),
    sources: cites[position] ?? [],
    code: unit.code,
  }));
}

function introduces(unit: { readonly text: string; readonly heading?: boolean }): boolean {
  return unit.heading === true || INTRODUCTION.test(unit.text);
}

/** A sentence that introduces what follows it. */
const INTRODUCTION = /:\s*$/;

/** A Markdown heading line: it names what the claims under it say. */
const HEADING = /^[ \t]*#{1,6}\s/;

function claimText(text: string, code: boolean): string {
  const stripped = stripCitations(text);
  return code ? stripped.trim() : collapseWhitespace(stripped).trim();
}

/** A sentence of a source: where it is in the source's text, and what it says. */
interface SourceSentence {
  readonly start: number;
  readonly end: number;
  readonly numbers: ReadonlySet<string>;
}

/** The whitespace-normalized text of a source, each of its characters mapped back to the original. */
interface NormalizedText {
  readonly text: string;
  readonly origins: readonly number[];
}

/** What a claim is checked against: the cited sources, segmented and indexed once. */
class SourceIndex {
  private readonly sentences = new Map<number, SourceSentence[]>();
  /** term → (source number → indices of its sentences holding the term). */
  private readonly postings = new Map<string, Map<number, number[]>>();
  private readonly normalized = new Map<number, NormalizedText>();
  private sentenceCount = 0;

  constructor(
    private readonly sources: readonly GroundingSource[],
    cited: ReadonlySet<number>,
  ) {
    for (const number of cited) {
      const text = sources[number - 1]?.chunk_text ?? '';
      const sentences: SourceSentence[] = [];
      for (const { segment, index } of sentenceSegmenter().segment(text)) {
        const position = sentences.length;
        for (const term of new Set(analyze(segment))) {
          let bySource = this.postings.get(term);
          if (!bySource) {
            bySource = new Map();
            this.postings.set(term, bySource);
          }
          const list = bySource.get(number) ?? [];
          list.push(position);
          bySource.set(number, list);
        }
        sentences.push({
          start: index,
          end: index + segment.length,
          numbers: numbersOf(segment),
        });
      }
      this.sentences.set(number, sentences);
      this.sentenceCount += sentences.length;
    }
  }

  /** The first cited source that supports the claim, and where; undefined when none does. */
  support(claim: ClaimUnit, terms: readonly string[]): Claim['support'] {
    for (const source of claim.sources) {
      const range = this.verbatim(source, claim);
      if (range) return { source, ...range };
    }
    const weights = terms.map((term) => this.idf(term));
    const total = weights.reduce((sum, weight) => sum + weight, 0);
    const numbers = numbersOf(claim.text);
    let best: (Claim['support'] & { score: number }) | undefined;
    for (const source of claim.sources) {
      const found = this.bestWindow(source, terms, weights, numbers);
      if (found && found.score >= SUPPORT_SHARE * total && (!best || found.score > best.score))
        best = { source, start: found.start, end: found.end, score: found.score };
    }
    return best ? { source: best.source, start: best.start, end: best.end } : undefined;
  }

  /** Inverse document frequency over the cited sources' sentences: rare words weigh more. */
  private idf(term: string): number {
    let frequency = 0;
    for (const list of this.postings.get(term)?.values() ?? []) frequency += list.length;
    return Math.log(1 + (this.sentenceCount + 1) / (frequency + 1));
  }

  /** The claim as a verbatim span of the source (whitespace normalized), mapped back to its text. */
  private verbatim(source: number, claim: ClaimUnit): TextRange | undefined {
    const normalized = this.normalizedText(source);
    for (const candidate of verbatimCandidates(claim.text)) {
      if (candidate.length === 0) continue;
      const at = normalized.text.indexOf(candidate);
      if (at < 0) continue;
      const start = normalized.origins[at] ?? 0;
      const end = (normalized.origins[at + candidate.length - 1] ?? start) + 1;
      return { start, end };
    }
    return undefined;
  }

  private normalizedText(source: number): NormalizedText {
    let normalized = this.normalized.get(source);
    if (!normalized) {
      normalized = normalizeWithOrigins(this.sources[source - 1]?.chunk_text ?? '');
      this.normalized.set(source, normalized);
    }
    return normalized;
  }

  /**
   * The window of this source (a sentence and WINDOW_REACH on either side)
   * holding the most of the claim's weight among those holding all its
   * numbers; its range spans the window's sentences that hold claim terms.
   */
  private bestWindow(
    source: number,
    terms: readonly string[],
    weights: readonly number[],
    numbers: ReadonlySet<string>,
  ): { score: number; start: number; end: number } | undefined {
    const sentences = this.sentences.get(source) ?? [];
    const scores = new Map<number, number>();
    const matched = new Map<number, Set<number>>();
    terms.forEach((term, position) => {
      const holding = this.postings.get(term)?.get(source) ?? [];
      const windows = new Set<number>();
      for (const sentence of holding) {
        for (let reach = -WINDOW_REACH; reach <= WINDOW_REACH; reach += 1) {
          const window = sentence + reach;
          if (window < 0 || window >= sentences.length) continue;
          windows.add(window);
          const hits = matched.get(window) ?? new Set<number>();
          hits.add(sentence);
          matched.set(window, hits);
        }
      }
      for (const window of windows)
        scores.set(window, (scores.get(window) ?? 0) + (weights[position] ?? 0));
    });
    let best: { score: number; start: number; end: number } | undefined;
    for (const [window, score] of scores) {
      if (best && score <= best.score) continue;
      if (!holdsNumbers(sentences, window, numbers)) continue;
      const hit = [...(matched.get(window) ?? [])];
      const first = sentences[Math.min(...hit)];
      const last = sentences[Math.max(...hit)];
      if (!first || !last) continue;
      best = {
        score,
        ...trimmedRange(this.sources[source - 1]?.chunk_text ?? '', first.start, last.end),
      };
    }
    return best;
  }
}

function holdsNumbers(
  sentences: readonly SourceSentence[],
  window: number,
  numbers: ReadonlySet<string>,
): boolean {
  for (const number of numbers) {
    let found = false;
    for (let at = window - WINDOW_REACH; at <= window + WINDOW_REACH && !found; at += 1)
      found = sentences[at]?.numbers.has(number) ?? false;
    if (!found) return false;
  }
  return true;
}

function numbersOf(text: string): Set<string> {
  return new Set([...text.matchAll(NUMBER)].map((match) => match[0].replace(/,/g, '')));
}

/**
 * The claim as it may stand in the source: whole; without list bullets or
 * heading marks it added; without the final stop (a quoted fragment ends
 * where the answer's sentence does); without backticks around code.
 */
function verbatimCandidates(claim: string): string[] {
  const normalized = collapseWhitespace(claim).trim();
  const undecorated = normalized.replace(DECORATION_START, '');
  const unstopped = undecorated.replace(/[.;:!?]+$/, '').trim();
  const unticked = unstopped.replace(/`/g, '');
  return [...new Set([normalized, undecorated, unstopped, unticked])];
}

/**
 * verbatim.ts's normalization (invisible characters removed, whitespace runs
 * as one space), remembering where each character came from so a match in
 * the normalized text maps back to the original's offsets.
 */
function normalizeWithOrigins(text: string): NormalizedText {
  const parts: string[] = [];
  const origins: number[] = [];
  let spaced = false;
  let at = 0;
  const keep = (from: number, to: number) => {
    if (from >= to) return;
    parts.push(text.slice(from, to));
    for (let index = from; index < to; index += 1) origins.push(index);
    spaced = false;
  };
  for (const match of text.matchAll(SKIPPED)) {
    keep(at, match.index);
    at = match.index + match[0].length;
    // Invisible characters vanish; a whitespace run (even one an invisible character split) is one space.
    const invisible = match[0].length === 1 && INVISIBLE.includes(match[0]);
    if (!invisible && !spaced) {
      parts.push(' ');
      origins.push(match.index);
      spaced = true;
    }
  }
  keep(at, text.length);
  return { text: parts.join(''), origins };
}

/** What the normalization drops or collapses: invisible characters, and runs of whitespace. */
const INVISIBLE = '\u200b\u2060\ufeff';
const SKIPPED = /[\u200b\u2060\ufeff]|\s+/g;

/** A range without the whitespace at its ends (sentences carry their trailing space). */
function trimmedRange(text: string, start: number, end: number): TextRange {
  let from = start;
  let to = end;
  while (from < to && /\s/.test(text[from] ?? '')) from += 1;
  while (to > from && /\s/.test(text[to - 1] ?? '')) to -= 1;
  return { start: from, end: to };
}

/** Each source's ranges that supported claims rely on, sorted, overlapping or adjacent ones merged. */
function mergedRanges(claims: readonly Claim[]): Map<number, TextRange[]> {
  const bySource = new Map<number, TextRange[]>();
  for (const claim of claims) {
    if (!claim.support) continue;
    const { source, start, end } = claim.support;
    const list = bySource.get(source) ?? [];
    list.push({ start, end });
    bySource.set(source, list);
  }
  for (const [source, ranges] of bySource) {
    const sorted = [...ranges].sort((a, b) => a.start - b.start || a.end - b.end);
    const merged: TextRange[] = [];
    for (const range of sorted) {
      const last = merged.at(-1);
      if (last && range.start <= last.end) {
        merged[merged.length - 1] = { start: last.start, end: Math.max(last.end, range.end) };
      } else merged.push(range);
    }
    bySource.set(source, merged);
  }
  return bySource;
}
