import { citedSourceNumbers, stripCitations } from '../../domain/citations';
import { NO_ANSWER_TEXT } from '../../domain/no-answer';
import { analyze, words } from '../../domain/retrieval/text-analysis';
import { estimateTokens, firstEstimatedTokens } from '../../domain/retrieval/token-estimate';
import { normalizeWhitespace } from '../../domain/retrieval/verbatim';
import type {
  AnswerEvent,
  Answerer,
  AnswerRequest,
  AnswerSource,
  ConversationTurn,
} from '../../ports/answerer.port';

/** D20: the model name of the offline default answerer. */
export const OFFLINE_EXTRACTIVE_MODEL = 'offline-extractive';

/**
 * The offline answerer (D20 `offline-extractive`): no network, no model. It
 * quotes the sentences of the offered sources that best match the question,
 * each followed by its citation `[n]`, and says honestly that it found
 * nothing (`NO_ANSWER_TEXT`) when no sentence shares a meaningful term with
 * the question.
 *
 * Terms are analyzed by the index's own analyzer (domain/retrieval/
 * text-analysis: lowercase, stopwords, Porter stems), so "refunds" matches
 * "refunded" here as it does in BM25; tokens are counted with the chunker's
 * tokenizer (domain/retrieval/tokens), which also enforces `maxTokens`.
 *
 * Deterministic: the same request always gives the same answer, so
 * `temperature` (D18) is ignored — there is no sampling to vary.
 *
 * @example
 * for await (const event of new ExtractiveAnswerer().answer(request)) {
 *   if (event.type === 'delta') process.stdout.write(event.text);
 * }
 */
export class ExtractiveAnswerer implements Answerer {
  readonly #support: SupportSettings;

  /** @param support for the eval's tuning grid only; the product uses {@link MIN_COVERAGE} and {@link RELATIVE_CUTOFF}. */
  constructor(support: Partial<SupportSettings> = {}) {
    this.#support = { minCoverage: MIN_COVERAGE, relativeCutoff: RELATIVE_CUTOFF, ...support };
  }

  async *answer(request: AnswerRequest): AsyncIterable<AnswerEvent> {
    const { signal } = request;
    signal?.throwIfAborted();
    const history = request.history.slice(-HISTORY_TURNS);
    const picked = pickSentences(request.question, history, request.sources, this.#support);
    const text = composeAnswer(picked, request.maxTokens);

    for (const piece of streamPieces(text)) {
      signal?.throwIfAborted();
      yield { type: 'delta', text: piece };
    }
    signal?.throwIfAborted();
    yield {
      type: 'done',
      result: {
        text,
        cited: citedSourceNumbers(
          text,
          request.sources.map((source) => source.number),
        ),
        tokensInput: inputTokens(request.question, history, request.sources),
        tokensOutput: estimateTokens(text),
        model: OFFLINE_EXTRACTIVE_MODEL,
      },
    };
  }
}

/** D18: the last 10 turns of a session go into the prompt. */
const HISTORY_TURNS = 10;
/** "The best few": more quoted sentences read as a pasted document, not an answer. */
const MAX_SENTENCES = 4;
/** Headings and list fragments ("Refund policy") say nothing on their own. */
const MIN_SENTENCE_WORDS = 3;
/** A sentence is kept only if it scores at least this share of the best one. */
export const RELATIVE_CUTOFF = 0.85;

/** When a sentence supports an answer (issue 10, P175). */
export interface SupportSettings {
  readonly minCoverage: number;
  readonly relativeCutoff: number;
}
/**
 * Issue 10, P175: a sentence supports an answer only when it covers at least
 * this share of the question's weighted terms; when none does, the answer
 * is the honest "couldn't find" and cites nothing. Chosen on the first 150
 * SciFact claims and the project's question set (docs/quality.md, citations).
 */
export const MIN_COVERAGE = 0.2;
/** Overlapping chunks repeat sentences; one that shares this many terms with a picked one is a repeat. */
const DUPLICATE_OVERLAP = 0.8;
/**
 * P126: a question term found in the headings above a sentence, not in the
 * sentence, counts this much: the sentence is read under its headings ("How
 * long do refunds take?" > "Money reaches your card in 5 days."), but a
 * sentence that says it outright is better evidence.
 */
const HEADING_TERM_WEIGHT = 0.5;
/** How much an earlier question counts when the current one refers back to it. */
const HISTORY_TERM_WEIGHT = 0.5;
/** Words per streamed delta. */
const WORDS_PER_DELTA = 6;

/**
 * How a sentence's score is made (weights sum to 1): mostly how much of the
 * question it covers; then how well its source was retrieved; a little for
 * coming early in its source (opening sentences state the topic) and for
 * being focused, kept small so short asides ("Gift cards cannot be
 * refunded.") do not beat the sentence that states the rule.
 */
const SCORE_WEIGHTS = { coverage: 0.65, retrieval: 0.2, position: 0.1, density: 0.05 } as const;

/**
 * Question words and chat filler that the index analyzer keeps (it drops
 * only Lucene's 33 stopwords) but that say nothing about what is asked:
 * "what", "how", "tell me" must not make a sentence look relevant.
 */
const QUESTION_FILLER: ReadonlySet<string> = new Set(
  analyze(
    'what which who whom whose when where why how do does did done can could should would ' +
      'may might must shall i me my mine we us our you your yours he him his she her hers ' +
      'about tell know explain describe please any some here there has have had having been ' +
      // "How long", "how much", "how many" ask for a quantity; the words name no subject (P175).
      'long much many ' +
      'being get got give show find want need like also just more else elaborate continue',
  ),
);

/** Words that point back at an earlier turn ("how much does it cost?"). */
const REFERRING_WORDS: ReadonlySet<string> = new Set([
  'it',
  'its',
  'they',
  'them',
  'their',
  'this',
  'that',
  'these',
  'those',
  'he',
  'she',
  'him',
  'her',
  'there',
]);

/** A sentence that asks (`?`, or the full-width `？` of CJK text), closing quotes and brackets aside. */
const QUESTION_END = /[?？]["'”’)\]]*$/u;

/** Fixed locale: sentence boundaries must not depend on the machine's (determinism). */
const SENTENCES = new Intl.Segmenter('en', { granularity: 'sentence' });

interface Sentence {
  /** The source's number, cited as `[n]`. */
  readonly source: number;
  /** Position in the source, for reading order. */
  readonly index: number;
  readonly text: string;
  readonly terms: ReadonlySet<string>;
  /** The meaningful terms of the headings above it (P126). */
  readonly headingTerms: ReadonlySet<string>;
}

interface ScoredSentence extends Sentence {
  readonly score: number;
}

function meaningfulTerms(text: string): Set<string> {
  return new Set(analyze(text).filter((term) => !QUESTION_FILLER.has(term)));
}

/**
 * Query terms with their weight: the question's terms count 1; when the
 * question refers back ("does it…") or says almost nothing, the previous
 * question's terms join at half weight.
 */
function queryTerms(question: string, history: readonly ConversationTurn[]): Map<string, number> {
  const weights = new Map<string, number>();
  for (const term of meaningfulTerms(question)) weights.set(term, 1);
  const previous = history.at(-1);
  const refersBack = words(question).some((word) => REFERRING_WORDS.has(word));
  if (previous && (refersBack || weights.size < 2)) {
    for (const term of meaningfulTerms(previous.question)) {
      if (!weights.has(term)) weights.set(term, HISTORY_TERM_WEIGHT);
    }
  }
  return weights;
}

/**
 * The source's sentences, each quoted as the document wrote it (issue 10:
 * a quote is a substring of the chunk after domain/retrieval/verbatim.ts's
 * normalization). A sentence holding bracketed numbers (footnotes) is not
 * quoted: they would read as our citations, and removing them would
 * misquote it. Nor is a question (P208): the one a FAQ entry or a Slack
 * thread opens with matches the user's question best and answers nothing.
 */
function splitSentences(source: AnswerSource): Sentence[] {
  const sentences: Sentence[] = [];
  const headingTerms = meaningfulTerms((source.heading_path ?? []).join('\n'));
  for (const { segment } of SENTENCES.segment(source.text)) {
    const text = normalizeWhitespace(segment);
    if (stripCitations(text) !== text) continue;
    if (text.split(' ').length < MIN_SENTENCE_WORDS) continue;
    if (QUESTION_END.test(text)) continue;
    sentences.push({
      source: source.number,
      index: sentences.length,
      text,
      terms: meaningfulTerms(text),
      headingTerms,
    });
  }
  return sentences;
}

/**
 * BM25's inverse document frequency over the offered sources: a term every
 * source mentions tells little about which sentence answers; one that only
 * one source mentions tells a lot. Always positive, also for a single source.
 */
function inverseSourceFrequency(
  sentencesBySource: readonly Sentence[][],
  terms: Iterable<string>,
): Map<string, number> {
  const sources = sentencesBySource.length;
  const idf = new Map<string, number>();
  for (const term of terms) {
    const frequency = sentencesBySource.filter((sentences) =>
      sentences.some((sentence) => sentence.terms.has(term) || sentence.headingTerms.has(term)),
    ).length;
    idf.set(term, Math.log(1 + (sources - frequency + 0.5) / (frequency + 0.5)));
  }
  return idf;
}

/** Retrieval scores scaled to 0–1 among the offered sources (similarities, BM25 and fused scores differ in range). */
function retrievalScores(sources: readonly AnswerSource[]): Map<number, number> {
  const scores = sources.map((source) => source.score);
  const low = Math.min(...scores);
  const high = Math.max(...scores);
  return new Map(
    sources.map((source) => [source.number, high > low ? (source.score - low) / (high - low) : 1]),
  );
}

/**
 * The sentences worth quoting, best first, scored by `SCORE_WEIGHTS`; the
 * question's terms are weighted by how rare they are among the sources.
 */
function pickSentences(
  question: string,
  history: readonly ConversationTurn[],
  sources: readonly AnswerSource[],
  { minCoverage, relativeCutoff }: SupportSettings,
): ScoredSentence[] {
  const query = queryTerms(question, history);
  if (query.size === 0 || sources.length === 0) return [];
  const sentencesBySource = sources.map(splitSentences);
  const idf = inverseSourceFrequency(sentencesBySource, query.keys());
  const retrieval = retrievalScores(sources);
  let queryMass = 0;
  for (const [term, weight] of query) queryMass += weight * (idf.get(term) ?? 0);
  const questionHasTerms = [...query.values()].includes(1);

  const scored: ScoredSentence[] = [];
  for (const sentence of sentencesBySource.flat()) {
    let matchedMass = 0;
    let matched = 0;
    let matchesQuestion = false;
    for (const term of sentence.terms) {
      const weight = query.get(term);
      if (weight === undefined) continue;
      matched += 1;
      matchedMass += weight * (idf.get(term) ?? 0);
      if (weight === 1) matchesQuestion = true;
    }
    for (const term of sentence.headingTerms) {
      const weight = query.get(term);
      if (weight === undefined || sentence.terms.has(term)) continue;
      matchedMass += HEADING_TERM_WEIGHT * weight * (idf.get(term) ?? 0);
      if (weight === 1) matchesQuestion = true;
    }
    // Terms carried over from an earlier question alone do not answer this
    // one, unless this one has none of its own ("tell me more").
    if (questionHasTerms ? !matchesQuestion : matched === 0) continue;
    const coverage = matchedMass / queryMass;
    if (!(coverage >= minCoverage)) continue;
    const score =
      SCORE_WEIGHTS.coverage * coverage +
      SCORE_WEIGHTS.retrieval * (retrieval.get(sentence.source) ?? 0) +
      SCORE_WEIGHTS.position / (1 + sentence.index) +
      SCORE_WEIGHTS.density * (matched / sentence.terms.size);
    scored.push({ ...sentence, score });
  }
  // Ties go to the better-ranked source, then to the earlier sentence: deterministic.
  scored.sort((a, b) => b.score - a.score || a.source - b.source || a.index - b.index);

  const best = scored[0]?.score ?? 0;
  const picked: ScoredSentence[] = [];
  for (const sentence of scored) {
    if (picked.length === MAX_SENTENCES || sentence.score < best * relativeCutoff) break;
    if (picked.some((chosen) => overlap(chosen.terms, sentence.terms) >= DUPLICATE_OVERLAP)) {
      continue;
    }
    picked.push(sentence);
  }
  return picked;
}

/** Jaccard similarity of two term sets. */
function overlap(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let shared = 0;
  for (const term of a) if (b.has(term)) shared += 1;
  const union = a.size + b.size - shared;
  return union === 0 ? 1 : shared / union;
}

/**
 * The answer: as many of the picked sentences as fit in `maxTokens` (D18),
 * grouped by source (the source with the best sentence first) and in each
 * source's own order, so the quotes read in the order their documents tell
 * them. When the best sentence alone does not fit, it is cut short rather
 * than replaced by a weaker one that happens to be shorter.
 */
function composeAnswer(picked: readonly ScoredSentence[], maxTokens: number): string {
  const [best] = picked;
  if (!best) return fitToTokens(NO_ANSWER_TEXT, maxTokens);
  if (estimateTokens(render([best])) > maxTokens) return truncateSentence(best, maxTokens);
  const kept: ScoredSentence[] = [best];
  for (const sentence of picked.slice(1)) {
    if (estimateTokens(render([...kept, sentence])) <= maxTokens) kept.push(sentence);
  }
  return render(kept);
}

function render(sentences: readonly ScoredSentence[]): string {
  const sourceOrder = [...new Set(sentences.map((sentence) => sentence.source))];
  return [...sentences]
    .sort(
      (a, b) => sourceOrder.indexOf(a.source) - sourceOrder.indexOf(b.source) || a.index - b.index,
    )
    .map((sentence) => cite(sentence.text, sentence.source))
    .join(' ');
}

/**
 * `The window is 30 days. [1]`: the marker follows the whole sentence, so the
 * text between two markers is a verbatim quote (issue 10).
 */
function cite(sentence: string, source: number): string {
  return `${sentence} [${source}]`;
}

/**
 * The longest start of the sentence, on a word boundary, that fits with
 * `… [n]`; when not even one word fits, the budget's first tokens (D18:
 * `max_tokens` is a hard limit, as it is for a provider's model).
 */
function truncateSentence(sentence: ScoredSentence, maxTokens: number): string {
  const sentenceWords = sentence.text.split(' ');
  // No ellipsis: the quote stays a verbatim start of the sentence (issue 10).
  const shorten = (count: number) =>
    `${sentenceWords.slice(0, count).join(' ')} [${sentence.source}]`;
  const best = shorten(
    longestFit(sentenceWords.length, (count) => estimateTokens(shorten(count)) <= maxTokens),
  );
  return estimateTokens(best) <= maxTokens ? best : firstEstimatedTokens(sentence.text, maxTokens);
}

/** The text itself when it fits in `maxTokens`, else its longest start that fits with `…` (or, failing that, its first tokens). */
function fitToTokens(text: string, maxTokens: number): string {
  if (estimateTokens(text) <= maxTokens) return text;
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

/** The text in groups of a few words; concatenated, they are exactly the text. */
function streamPieces(text: string): string[] {
  const pieces: string[] = [];
  const tokens = text.match(/\S+\s*/g) ?? [];
  for (let start = 0; start < tokens.length; start += WORDS_PER_DELTA) {
    pieces.push(tokens.slice(start, start + WORDS_PER_DELTA).join(''));
  }
  return pieces;
}

/** What a chat model would have read: the question, the sources and the history (D18). */
function inputTokens(
  question: string,
  history: readonly ConversationTurn[],
  sources: readonly AnswerSource[],
): number {
  let tokens = estimateTokens(question);
  for (const source of sources) tokens += estimateTokens(source.text);
  for (const turn of history) tokens += estimateTokens(turn.question) + estimateTokens(turn.answer);
  return tokens;
}
