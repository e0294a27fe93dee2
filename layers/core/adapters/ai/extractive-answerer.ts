import { citedSourceNumbers } from '../../domain/citations';
import { NO_ANSWER_TEXT } from '../../domain/no-answer';
import { estimateTokens } from '../../domain/retrieval/token-estimate';
import type {
  AnswerEvent,
  Answerer,
  AnswerRequest,
  AnswerSource,
  ConversationTurn,
} from '../../ports/answerer.port';
import { composeAnswer, fitToTokens } from './extractive/compose-answer';
import {
  MIN_COVERAGE,
  pickUnits,
  QUESTION_FILLER,
  RELATIVE_CUTOFF,
  type SupportSettings,
} from './extractive/pick-units';
import { questionKeywords } from './extractive/question-focus';

export { MIN_COVERAGE, RELATIVE_CUTOFF, type SupportSettings } from './extractive/pick-units';

/** The model name of the offline default answerer. */
export const OFFLINE_EXTRACTIVE_MODEL = 'offline-extractive';

/**
 * The offline answerer: no network, no model. It answers by quoting its
 * sources, each quote followed by its citation `[n]`:
 *
 * 1. Each offered passage is cut into units a person would quote: sentences,
 *    list items, table rows, code blocks, and a sentence together with the
 *    code block or list it introduces (extractive/passage-units.ts).
 * 2. The question's focus (extractive/question-focus.ts) says what kind of
 *    unit answers it: a procedure wants a command or code, "which option"
 *    an identifier, "how many" a number.
 * 3. Units are scored by how much of the question they cover (terms weighed
 *    by how rare they are among the passages, and by whether they are
 *    everyday words), by how well their passage was retrieved, and by
 *    whether they hold what the focus asks for. Words of the headings above
 *    a unit and of its document's title count too, for less.
 * 4. The answer quotes the best unit and up to two more from the same
 *    document (several documents only when the question compares), in the
 *    document's order. When a unit's identifier is in its heading rather
 *    than its text ("Binds and listens for connections…" under
 *    "app.listen([port])"), the heading leads the quote.
 *
 * It says honestly that it found nothing only when no unit covers enough of
 * the question, and then names what it searched for.
 *
 * Terms are analyzed by the index's own analyzer (lowercase, stopwords,
 * Porter stems), so "refunds" matches "refunded" here as it does in BM25.
 * Deterministic: the same request always gives the same answer, so
 * `temperature` is ignored — there is no sampling to vary.
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
    const picked = pickUnits(request.question, history, request.sources, this.#support);
    const text =
      picked.length > 0
        ? composeAnswer(picked, request.maxTokens)
        : fitToTokens(noAnswerText(request.question, request.sources), request.maxTokens);

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

/** The last 10 turns of a session are read with the question. */
const HISTORY_TURNS = 10;
/** Words per streamed delta. */
const WORDS_PER_DELTA = 6;

/**
 * The honest non-answer, and what was searched: the question's words and
 * the documents whose passages were read, so the asker can tell a missing
 * document from a question worded differently from the documents.
 */
function noAnswerText(question: string, sources: readonly AnswerSource[]): string {
  const keywords = questionKeywords(question, QUESTION_FILLER);
  if (keywords.length === 0 || sources.length === 0) return NO_ANSWER_TEXT;
  const titles = [...new Set(sources.map((source) => source.document_title))].slice(0, 3);
  const passages =
    sources.length === 1 ? 'the closest passage' : `the ${sources.length} closest passages`;
  return `${NO_ANSWER_TEXT} I searched for “${keywords.join(' ')}” and read ${passages}, from ${listOf(titles)}.`;
}

function listOf(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
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

/** What a chat model would have read: the question, the sources and the history. */
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
