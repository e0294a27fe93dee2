import { citedSourceNumbers } from '../../domain/citations';
import { NO_ANSWER_TEXT } from '../../domain/no-answer';
import { analyze, words } from '../../domain/retrieval/text-analysis';
import { estimateTokens, firstEstimatedTokens } from '../../domain/retrieval/token-estimate';
import { HEADING_QUOTE_SEPARATOR } from '../../domain/retrieval/verbatim';
import type {
  AnswerEvent,
  Answerer,
  AnswerRequest,
  AnswerSource,
  ConversationTurn,
} from '../../ports/answerer.port';
import { type PassageUnit, passageUnits } from './extractive/passage-units';
import {
  COMMON_WORDS,
  comparesThings,
  documentationTerms,
  hasNumber,
  identifiersIn,
  type QuestionFocus,
  questionFocus,
  questionKeywords,
} from './extractive/question-focus';

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
/** More quoted units read as a pasted document, not an answer. */
const MAX_UNITS = 3;
/** A code block is quoted with at most this many of its lines (the ones that match best). */
const MAX_CODE_LINES = 12;

/** When a unit supports an answer. */
export interface SupportSettings {
  readonly minCoverage: number;
  readonly relativeCutoff: number;
}
/**
 * A unit supports an answer only when it covers at least this share of the
 * question's weighted terms (its headings and title helping); when none
 * does, the answer is the honest "couldn't find" and cites nothing.
 */
export const MIN_COVERAGE = 0.2;
/** Units after the best are quoted only if they score at least this share of it. */
export const RELATIVE_CUTOFF = 0.7;
/**
 * When more than this share of the question's weight is in words no offered passage
 * holds, the passages are about something else and the answer is "couldn't
 * find".
 */
const ABSENT_SHARE = 0.5;
/** A unit not next to the best one is quoted only if it scores at least this share of it. */
const CLOSE_SECOND = 0.9;
/** A further unit not next to the best one must cover at least this share of the question that the picked ones do not. */
const NEW_COVERAGE = 0.15;
/** A unit holds what the question's focus asks for at least this well (an identifier for a procedure). */
const FOCUS_HELD = 0.6;
/** Overlapping chunks repeat sentences; a unit that shares this many terms with a picked one is a repeat. */
const DUPLICATE_OVERLAP = 0.8;
/**
 * A question term found only in the headings above a unit counts this
 * much, one found only in its document's title less: the unit is read under
 * them ("How long do refunds take?" > "Money reaches your card in 5 days."),
 * but a unit that says it outright is better evidence.
 */
const HEADING_TERM_WEIGHT = 0.5;
const TITLE_TERM_WEIGHT = 0.3;
/** How much an earlier question counts when the current one refers back to it. */
const HISTORY_TERM_WEIGHT = 0.5;
/** How much the documentation's word for a question's word counts ("disable" for "turn off"). */
const DOCUMENTATION_TERM_WEIGHT = 0.7;
/** How much an everyday word ("use", "file", "make") counts against a rarer one. */
const COMMON_TERM_WEIGHT = 0.35;
/** Words per streamed delta. */
const WORDS_PER_DELTA = 6;

/**
 * How a unit's score is made (weights sum to 1): mostly how much of the
 * question it covers; then how well its passage was retrieved (the search
 * usually has the right document first); whether it holds what the question
 * asks for (code, an identifier, a number); a little for coming early in its
 * passage and for being focused on the question's terms. `named` is how much
 * of the question the identifiers the unit names say (`--exclude` for
 * "exclude a folder"). `title` is how much of the question the document's
 * title says: "does tar keep permissions" is about the tar manual, whatever
 * the ssh manual says about permissions. `document` is how
 * much of the question the unit's document covers in all its offered
 * passages: a sentence of another library's README that happens to share
 * one rare word must not win over the document the question is about.
 */
const SCORE_WEIGHTS = {
  coverage: 0.38,
  retrieval: 0.2,
  focus: 0.14,
  named: 0.12,
  document: 0.07,
  title: 0.07,
  position: 0.02,
  density: 0.02,
} as const;

/** The retrieval prior of the passages by rank: the first is usually the one. */
const RANK_PRIOR = [1, 0.7, 0.5, 0.35, 0.25] as const;
const LAST_RANK_PRIOR = 0.2;
/** How much of the retrieval prior is the passage's own rank rather than its document's. */
const PASSAGE_RANK_SHARE = 0.25;

/**
 * Question words and chat filler that the index analyzer keeps (it drops
 * only Lucene's 33 stopwords) but that say nothing about what is asked:
 * "what", "how", "tell me" must not make a sentence look relevant.
 */
const QUESTION_FILLER: ReadonlySet<string> = new Set(
  analyze(
    'what whats which who whom whose when where why how do does did done can could should would ' +
      'may might must shall i im me my mine we us our you your yours he him his she her hers ' +
      'about tell know explain describe please any some here there has have had having been ' +
      // "How long", "how much", "how many" ask for a quantity; the words name no subject.
      'long much many ' +
      'being get got give show find want need like also just more else elaborate continue ' +
      'anyone someone somebody thanks thank hi hello hey ok okay wanna gonna ' +
      'way ways possible able actually really exactly basically',
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

/** A statement that settles a yes-or-no question one way or the other. */
const SETTLES =
  /\b(?:not|no|never|only|cannot|can't|must|always|by default|supports?|requires?)\b/i;

/** A heading that asks is a FAQ's question: it does not lead a quote. */
const QUESTION_END = /[?？]["'”’)\]]*$/u;

/** Headings longer than this are sentences, not names to lead a quote with. */
const HEADING_MAX_WORDS = 12;

interface Candidate {
  readonly source: AnswerSource;
  readonly unit: PassageUnit;
  /** Which document the unit is from: units of one document are quoted together. */
  readonly document: string;
  readonly terms: ReadonlySet<string>;
  readonly headingTerms: ReadonlySet<string>;
  readonly titleTerms: ReadonlySet<string>;
  /**
   * The words of the identifiers the unit names (its term line's, its code's):
   * a user asking to "exclude" a folder wants `--exclude`, one asking for a
   * time limit `--max-time`.
   */
  readonly namedTerms: ReadonlySet<string>;
  /** The heading that leads the quote, when the unit's identifier is there and not in its text. */
  readonly leadingHeading: string | null;
  readonly focus: number;
}

interface ScoredCandidate extends Candidate {
  readonly score: number;
}

function meaningfulTerms(text: string): Set<string> {
  return new Set(analyze(text).filter((term) => !QUESTION_FILLER.has(term)));
}

/** The question's own meaningful terms, and the documentation's words for some of them. */
interface AskedTerms {
  readonly own: ReadonlySet<string>;
  readonly documentation: ReadonlySet<string>;
}

/**
 * Query terms with their weight: the question's terms count 1 (an everyday
 * word less); when the question refers back ("does it…") or says almost
 * nothing, the previous question's terms join at half weight.
 */
function queryTerms(
  question: string,
  asked: AskedTerms,
  history: readonly ConversationTurn[],
): Map<string, number> {
  const weights = new Map<string, number>();
  const weigh = (term: string, weight: number) =>
    weights.set(term, COMMON_WORDS.has(term) ? weight * COMMON_TERM_WEIGHT : weight);
  for (const term of asked.own) weigh(term, 1);
  for (const term of asked.documentation) {
    if (!weights.has(term)) weigh(term, DOCUMENTATION_TERM_WEIGHT);
  }
  const previous = history.at(-1);
  const refersBack = words(question).some((word) => REFERRING_WORDS.has(word));
  if (previous && (refersBack || weights.size < 2)) {
    for (const term of meaningfulTerms(previous.question)) {
      if (!weights.has(term)) weigh(term, HISTORY_TERM_WEIGHT);
    }
  }
  return weights;
}

/** The document a source belongs to: its address, else its title. */
function documentOf(source: AnswerSource): string {
  return source.document_id ?? source.document_url ?? source.document_title;
}

/** How well a unit holds what the question's focus asks for, 0–1. */
function focusMatch(
  focus: QuestionFocus,
  unit: PassageUnit,
  text: string,
  identifiers: number,
): number {
  switch (focus) {
    case 'procedure':
      if (unit.kind === 'lead' && unit.codeLines > 0) return 1;
      if (unit.term !== undefined) return 1;
      if (unit.kind === 'code') return 0.8;
      return identifiers > 0 ? 0.6 : 0;
    case 'name':
      // A described term names the thing and says what it does; an example only shows it used.
      if (unit.term !== undefined) return 1;
      if (unit.kind === 'code') return 0.4;
      return identifiers > 0 ? 0.8 : 0;
    case 'number':
      // A default or a limit is a number, or a named value ("defaults to --mixed").
      if (hasNumber(text)) return 1;
      return identifiers > 0 ? 0.6 : 0;
    case 'yes-no':
      return unit.kind === 'sentence' && SETTLES.test(text)
        ? 1
        : unit.kind === 'sentence'
          ? 0.4
          : 0;
    case 'explanation':
      return unit.kind === 'sentence' || unit.kind === 'lead' ? 0.5 : 0;
  }
}

/**
 * The heading that may name what a unit is about, when the unit itself does
 * not: an API reference writes "Binds and listens for connections…" under
 * "app.listen([port])", and the answer must say `app.listen`. Only a short
 * heading that holds an identifier and does not ask.
 */
function leadingHeadingCandidate(
  source: AnswerSource,
): { readonly text: string; readonly identifiers: readonly string[] } | null {
  const heading = source.heading_path?.at(-1)?.trim();
  if (!heading || QUESTION_END.test(heading)) return null;
  if (heading.split(/\s+/).length > HEADING_MAX_WORDS) return null;
  const identifiers = identifiersIn(heading);
  return identifiers.length === 0 ? null : { text: heading, identifiers };
}

function candidatesOf(source: AnswerSource, focus: QuestionFocus): Candidate[] {
  const headingTerms = meaningfulTerms((source.heading_path ?? []).join('\n'));
  const titleTerms = meaningfulTerms(source.document_title);
  const document = documentOf(source);
  const heading = leadingHeadingCandidate(source);
  return passageUnits(source.text).map((unit) => {
    const text = [unit.term ?? '', ...unit.parts].join('\n').trim();
    const identifiers = identifiersIn(text);
    const leadingHeading = heading && identifiers.length === 0 ? heading.text : null;
    const named =
      leadingHeading && heading ? [...heading.identifiers, ...identifiers] : identifiers;
    return {
      source,
      unit,
      document,
      terms: meaningfulTerms(text),
      namedTerms: meaningfulTerms(named.join(' ').replace(/[-_.]/g, ' ')),
      headingTerms,
      titleTerms,
      leadingHeading,
      focus: focusMatch(focus, unit, text, named.length),
    };
  });
}

/**
 * BM25's inverse document frequency over the offered passages, plus one: a
 * term every passage mentions tells less about which unit answers than one
 * only one passage mentions, but five passages are too few to call a word
 * rare, so every term keeps a floor of weight. A term no passage holds weighs as the
 * rarest one that some passage holds, so it lowers every unit's coverage
 * without drowning the terms that are there.
 */
function inverseSourceFrequency(
  candidates: readonly Candidate[],
  sourceCount: number,
  terms: Iterable<string>,
): Map<string, number> {
  const holders = new Map<string, Set<number>>();
  for (const candidate of candidates) {
    for (const set of [candidate.terms, candidate.headingTerms, candidate.titleTerms]) {
      for (const term of set) {
        entryOf(holders, term).add(candidate.source.number);
      }
    }
  }
  const idf = new Map<string, number>();
  const absent: string[] = [];
  for (const term of terms) {
    const frequency = holders.get(term)?.size ?? 0;
    if (frequency === 0) absent.push(term);
    else idf.set(term, 1 + Math.log(1 + (sourceCount - frequency + 0.5) / (frequency + 0.5)));
  }
  const rarest = Math.max(0, ...idf.values());
  for (const term of absent) idf.set(term, rarest);
  return idf;
}

/** The units worth quoting, in the order they are scored (best first), chosen from one document unless the question compares. */
function pickUnits(
  question: string,
  history: readonly ConversationTurn[],
  sources: readonly AnswerSource[],
  { minCoverage, relativeCutoff }: SupportSettings,
): ScoredCandidate[] {
  const asked: AskedTerms = {
    own: meaningfulTerms(question),
    documentation: new Set(documentationTerms(question).keys()),
  };
  const query = queryTerms(question, asked, history);
  if (query.size === 0 || sources.length === 0) return [];
  const focus = questionFocus(question);
  const candidates = sources.flatMap((source) => candidatesOf(source, focus));
  const idf = inverseSourceFrequency(candidates, sources.length, query.keys());
  let queryMass = 0;
  for (const [term, weight] of query) queryMass += weight * (idf.get(term) ?? 0);
  if (!(queryMass > 0)) return [];
  const questionTerms = new Set(
    [...query.keys()].filter((term) => asked.own.has(term) || asked.documentation.has(term)),
  );

  // A question whose own words the passages mostly never use is about something they do not
  // cover ("kubectl", "nginx"): the honest answer is that nothing was found.
  if (absentShare(asked.own, sources, query, idf, queryMass) > ABSENT_SHARE) return [];
  const documentCoverage = coverageByDocument(candidates, query, idf, queryMass);
  const documentRank = documentRanks(sources);
  const scored: ScoredCandidate[] = [];
  for (const candidate of candidates) {
    let matchedMass = 0;
    let matched = 0;
    let matchesQuestion = false;
    for (const [term, weight] of query) {
      const termIdf = idf.get(term) ?? 0;
      let share = 0;
      if (candidate.terms.has(term)) {
        share = 1;
        matched += 1;
      } else if (candidate.headingTerms.has(term)) share = HEADING_TERM_WEIGHT;
      else if (candidate.titleTerms.has(term)) share = TITLE_TERM_WEIGHT;
      if (share === 0) continue;
      matchedMass += share * weight * termIdf;
      // Terms carried over from an earlier question, or only in the title, do not answer this one.
      if (share > TITLE_TERM_WEIGHT && questionTerms.has(term)) matchesQuestion = true;
    }
    if (questionTerms.size > 0 ? !matchesQuestion : matched === 0) continue;
    const coverage = matchedMass / queryMass;
    if (!(coverage >= minCoverage)) continue;
    let namedMass = 0;
    for (const term of candidate.namedTerms) {
      if (questionTerms.has(term)) namedMass += (query.get(term) ?? 0) * (idf.get(term) ?? 0);
    }
    const rank = retrievalPrior(candidate, documentRank);
    const score =
      SCORE_WEIGHTS.coverage * coverage +
      SCORE_WEIGHTS.retrieval * rank +
      SCORE_WEIGHTS.focus * candidate.focus +
      SCORE_WEIGHTS.document * (documentCoverage.get(candidate.document) ?? 0) +
      SCORE_WEIGHTS.title * titleCoverage(candidate, questionTerms, query, idf, queryMass) +
      SCORE_WEIGHTS.named * (namedMass / queryMass) +
      SCORE_WEIGHTS.position / (1 + candidate.unit.index) +
      SCORE_WEIGHTS.density * (candidate.terms.size === 0 ? 0 : matched / candidate.terms.size);
    scored.push({ ...candidate, score });
  }
  // Ties go to the better-ranked source, then to the earlier unit: deterministic.
  scored.sort(
    (a, b) => b.score - a.score || a.source.number - b.source.number || a.unit.index - b.unit.index,
  );
  const [best] = scored;
  if (!best) return [];

  const oneDocument = !comparesThings(question);
  const picked: ScoredCandidate[] = [best];
  const isRepeat = (candidate: ScoredCandidate) =>
    picked.some(
      (chosen) =>
        overlap(chosen.terms, candidate.terms) >= DUPLICATE_OVERLAP ||
        chosen.unit.parts.some((part) => candidate.unit.parts.includes(part)),
    );
  // A further unit must add to the answer: continue the best one's account (the unit next to
  // it in its passage), or cover question terms the picked ones do not, scoring close to the best.
  // For a question that asks for one thing (a name, a number, a command), the neighbour is
  // quoted only when it holds that thing and the best unit does not.
  const continues = (candidate: ScoredCandidate) =>
    focus === 'explanation' ||
    focus === 'yes-no' ||
    (candidate.focus >= FOCUS_HELD && best.focus < FOCUS_HELD);
  const nextToBest = (candidate: ScoredCandidate) =>
    candidate.source === best.source &&
    Math.abs(candidate.unit.index - best.unit.index) === 1 &&
    continues(candidate);
  const addsTerms = (candidate: ScoredCandidate) => {
    let added = 0;
    for (const term of candidate.terms) {
      if (questionTerms.has(term) && !picked.some((chosen) => chosen.terms.has(term))) {
        added += (query.get(term) ?? 0) * (idf.get(term) ?? 0);
      }
    }
    return added / queryMass >= NEW_COVERAGE;
  };
  for (const candidate of scored.slice(1)) {
    if (picked.length === MAX_UNITS || candidate.score < best.score * relativeCutoff) break;
    if (oneDocument && candidate.source !== best.source) continue;
    if (isRepeat(candidate)) continue;
    if (
      nextToBest(candidate) ||
      (candidate.score >= best.score * CLOSE_SECOND && addsTerms(candidate))
    ) {
      picked.push(candidate);
    }
  }
  // What the question asks for (a command, a name, a number) may sit next to the sentence
  // that matches it best: quote the best unit of the same document that holds it.
  const answersFocus = (candidate: ScoredCandidate) => candidate.focus >= FOCUS_HELD;
  if (focus !== 'explanation' && !picked.some(answersFocus)) {
    const holder = scored.find(
      (candidate) =>
        candidate.focus === 1 &&
        candidate.document === best.document &&
        candidate.score >= best.score * relativeCutoff &&
        !isRepeat(candidate),
    );
    if (holder) {
      if (picked.length === MAX_UNITS) picked.pop();
      picked.push(holder);
    }
  }
  return picked;
}

/**
 * The share of the question's weight in its own words (not the
 * documentation's words added for them) that no offered passage, heading or
 * title holds.
 */
function absentShare(
  ownTerms: ReadonlySet<string>,
  sources: readonly AnswerSource[],
  query: ReadonlyMap<string, number>,
  idf: ReadonlyMap<string, number>,
  queryMass: number,
): number {
  const present = new Set<string>();
  for (const source of sources) {
    const texts = [source.text, source.document_title, ...(source.heading_path ?? [])];
    for (const term of analyze(texts.join('\n'))) present.add(term);
  }
  let mass = 0;
  for (const term of ownTerms) {
    if (!present.has(term)) mass += (query.get(term) ?? 0) * (idf.get(term) ?? 0);
  }
  return mass / queryMass;
}

/** The share of the question's weighted terms that the unit's document title holds. */
function titleCoverage(
  candidate: Candidate,
  questionTerms: ReadonlySet<string>,
  query: ReadonlyMap<string, number>,
  idf: ReadonlyMap<string, number>,
  queryMass: number,
): number {
  let mass = 0;
  for (const term of candidate.titleTerms) {
    if (questionTerms.has(term)) mass += (query.get(term) ?? 0) * (idf.get(term) ?? 0);
  }
  return mass / queryMass;
}

/** Each document's place among the offered passages' documents, by its best-ranked passage (from 0). */
function documentRanks(sources: readonly AnswerSource[]): Map<string, number> {
  const ranks = new Map<string, number>();
  for (const source of [...sources].sort((a, b) => a.number - b.number)) {
    const document = documentOf(source);
    if (!ranks.has(document)) ranks.set(document, ranks.size);
  }
  return ranks;
}

/**
 * How well a unit's passage was retrieved, 0–1: mostly its document's
 * place (search is good at finding the document), a little the passage's
 * own (among five passages of one manual, the best-ranked one is often
 * not the one holding the answer).
 */
function retrievalPrior(candidate: Candidate, documentRank: ReadonlyMap<string, number>): number {
  const byDocument =
    RANK_PRIOR[documentRank.get(candidate.document) ?? RANK_PRIOR.length] ?? LAST_RANK_PRIOR;
  const byPassage = RANK_PRIOR[candidate.source.number - 1] ?? LAST_RANK_PRIOR;
  return PASSAGE_RANK_SHARE * byPassage + (1 - PASSAGE_RANK_SHARE) * byDocument;
}

/**
 * How much of the question each document covers, over all its offered
 * passages, their headings and its title: 0–1 of the query's weighted mass.
 */
function coverageByDocument(
  candidates: readonly Candidate[],
  query: ReadonlyMap<string, number>,
  idf: ReadonlyMap<string, number>,
  queryMass: number,
): Map<string, number> {
  const termsByDocument = new Map<string, Set<string>>();
  for (const candidate of candidates) {
    const terms = entryOf(termsByDocument, candidate.document);
    for (const set of [candidate.terms, candidate.headingTerms, candidate.titleTerms]) {
      for (const term of set) if (query.has(term)) terms.add(term);
    }
  }
  const coverage = new Map<string, number>();
  for (const [document, terms] of termsByDocument) {
    let mass = 0;
    for (const term of terms) mass += (query.get(term) ?? 0) * (idf.get(term) ?? 0);
    coverage.set(document, mass / queryMass);
  }
  return coverage;
}

/** The set stored under `key`, made empty on first use. */
function entryOf<K, V>(map: Map<K, Set<V>>, key: K): Set<V> {
  let entry = map.get(key);
  if (!entry) {
    entry = new Set();
    map.set(key, entry);
  }
  return entry;
}

/** Jaccard similarity of two term sets. */
function overlap(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let shared = 0;
  for (const term of a) if (b.has(term)) shared += 1;
  const union = a.size + b.size - shared;
  return union === 0 ? 1 : shared / union;
}

/**
 * The answer: as many of the picked units as fit in `maxTokens`, grouped by
 * source (the source with the best unit first) and in each source's own
 * order, so the quotes read in the order their documents tell them. When
 * the best unit alone does not fit, it is cut short rather than replaced by
 * a weaker one that happens to be shorter.
 */
function composeAnswer(picked: readonly ScoredCandidate[], maxTokens: number): string {
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
function fitToTokens(text: string, maxTokens: number): string {
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
