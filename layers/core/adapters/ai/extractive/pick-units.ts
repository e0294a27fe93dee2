import { documentationTerms } from '../../../domain/retrieval/documentation-words';
import { analyze, words } from '../../../domain/retrieval/text-analysis';
import type { AnswerSource, ConversationTurn } from '../../../ports/answerer.port';
import {
  type Candidate,
  candidatesOf,
  documentOf,
  meaningfulTerms,
  type ScoredCandidate,
} from './candidates';
import { askedNameKind, COMMON_WORDS, comparesThings, questionFocus } from './question-focus';

export { QUESTION_FILLER, type ScoredCandidate } from './candidates';

/**
 * Choosing what the offline answerer quotes: every offered passage is cut
 * into units, each unit scored against the question (how much of it the unit
 * covers, how well its passage was retrieved, whether it holds what the
 * question asks for), and the best unit picked with the few that add to it.
 */

/** More quoted units read as a pasted document, not an answer. */
/** A term's description is quoted with at most this many of its first units. */
const TERM_DESCRIPTION_UNITS = 4;
const MAX_UNITS = 3;

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
/**
 * A described term scoring within this share of the best one is as likely
 * to be the answer: the scores cannot tell them apart, so both are quoted.
 */
const NEAR_TIE = 0.98;
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
/** A question term found only inside a compound name the unit writes. */
const PART_TERM_WEIGHT = 0.5;
/** How much an earlier question counts when the current one refers back to it. */
const HISTORY_TERM_WEIGHT = 0.5;
/** How much the documentation's word for a question's word counts ("disable" for "turn off"). */
const DOCUMENTATION_TERM_WEIGHT = 0.7;
/** How much an everyday word ("use", "file", "make") counts against a rarer one. */
const COMMON_TERM_WEIGHT = 0.35;

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

/**
 * A unit of a document whose title names none of the subjects the question
 * names ("ssh" in "ssh use a specific private key file"), when another offered
 * document's title does, scores this share: curl's manual also speaks of SSH
 * keys, but the question is about ssh.
 */
const OFF_SUBJECT = 0.8;

/** The retrieval prior of the passages by rank: the first is usually the one. */
const RANK_PRIOR = [1, 0.7, 0.5, 0.35, 0.25] as const;
const LAST_RANK_PRIOR = 0.2;
/** How much of the retrieval prior is the passage's own rank rather than its document's. */
const PASSAGE_RANK_SHARE = 0.25;

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
export function pickUnits(
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
  const kind = askedNameKind(question);
  const candidates = sources.flatMap((source) => candidatesOf(source, focus, kind));
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
  const aboutSubject = subjectOfQuestion(candidates, asked.own);
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
      } else if (candidate.partTerms.has(term)) share = PART_TERM_WEIGHT;
      else if (candidate.headingTerms.has(term)) share = HEADING_TERM_WEIGHT;
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
    scored.push({ ...candidate, score: aboutSubject(candidate) ? score : score * OFF_SUBJECT });
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
  // Two described terms ("--only-untracked", "--include-untracked") the scores cannot tell apart.
  const nearTie = (candidate: ScoredCandidate) =>
    best.unit.term !== undefined &&
    candidate.unit.term !== undefined &&
    candidate.unit.term !== best.unit.term &&
    candidate.score >= best.score * NEAR_TIE;
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
      nearTie(candidate) ||
      (candidate.score >= best.score * CLOSE_SECOND && addsTerms(candidate))
    ) {
      picked.push(candidate);
    }
  }
  // What the question asks for (a command, a name, a number) may sit next to the sentence
  // that matches it best: quote the best unit of the same document that holds it.
  // A number question is answered by a number: a name beside it ("truststore") is not one.
  const answersFocus = (candidate: ScoredCandidate) =>
    focus === 'number' ? candidate.focus === 1 : candidate.focus >= FOCUS_HELD;
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
  const answer = withDefinition(picked, candidates);
  return !COMPARES_TWO.test(question)
    ? answer
    : withComparedTerms(answer, scored, candidates, questionTerms, best.score * relativeCutoff);
}

/** A question that sets two things side by side, not one that only says "different". */
const COMPARES_TWO =
  /\b(?:vs\.?|versus|difference|differ|compared?|comparison)\b|\bbetween\b.+\band\b/i;
/** At most this many other described terms join a comparison ("apply" with "pop"). */
const COMPARED_TERMS = 2;

/**
 * A question that compares two described terms ("the difference between
 * stash apply and pop") is answered by both descriptions: the best unit
 * describes one, and each other term the question names that scores close
 * enough joins with the first sentence of its own description.
 */
function withComparedTerms(
  answer: readonly ScoredCandidate[],
  scored: readonly ScoredCandidate[],
  candidates: readonly Candidate[],
  questionTerms: ReadonlySet<string>,
  minScore: number,
): ScoredCandidate[] {
  const result = [...answer];
  const described = new Set(result.map((unit) => unit.unit.term));
  if (!result.some((unit) => unit.unit.term !== undefined)) return result;
  for (const candidate of scored) {
    if (candidate.score < minScore || described.size > COMPARED_TERMS) break;
    const term = candidate.unit.term;
    if (term === undefined || described.has(term)) continue;
    if (![...termNameWords(term)].some((word) => questionTerms.has(word))) continue;
    described.add(term);
    const definition = candidates.find(
      (other) => other.source === candidate.source && other.unit.term === term,
    );
    result.push(definition ? { ...definition, score: candidate.score } : candidate);
  }
  return result;
}

/** The words of the name a term line opens with: "apply" of `apply [--index] [<stash>]`. */
function termNameWords(term: string): Set<string> {
  const [name = ''] = term
    .replace(/`/g, '')
    .trim()
    .split(/[\s,[=<]/, 1);
  return meaningfulTerms(name.replace(/[-_.]/g, ' '));
}

/**
 * A described term (an option, a setting) is answered by its description,
 * read from the start: the sentence that matched the question best is often
 * a later remark ("Use ~/.ssh/config for jump hosts"), while the first says
 * what the term does. The best unit's term is quoted with the first
 * sentences of its description, up to the matched one; other picked units
 * of that term are kept in that span.
 */
function withDefinition(
  picked: readonly ScoredCandidate[],
  candidates: readonly Candidate[],
): ScoredCandidate[] {
  const [best] = picked;
  if (best?.unit.term === undefined) return [...picked];
  const description = candidates.filter(
    (candidate) => candidate.source === best.source && candidate.unit.term === best.unit.term,
  );
  const span = description.slice(0, TERM_DESCRIPTION_UNITS);
  if (span.some((candidate) => candidate.unit === best.unit)) {
    const chosen = span.map((candidate) =>
      candidate.unit === best.unit ? best : { ...candidate, score: best.score },
    );
    return [
      ...chosen,
      ...picked.filter((unit) => unit.source !== best.source || unit.unit.term !== best.unit.term),
    ].slice(0, Math.max(MAX_UNITS, chosen.length));
  }
  const [first] = description;
  if (!first) return [...picked];
  const others = picked.slice(1).filter((candidate) => candidate.unit !== first.unit);
  return [best, { ...first, score: best.score }, ...others].slice(0, MAX_UNITS);
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

/**
 * Whether a unit is about what the question names: the question's own rarer
 * words that some offered document's title holds are its subjects, and a
 * unit is about them when its title holds one. With no such word, every unit is.
 */
function subjectOfQuestion(
  candidates: readonly Candidate[],
  ownTerms: ReadonlySet<string>,
): (candidate: Candidate) => boolean {
  const subjects = new Set<string>();
  // Units of one source share its title's set: each set is read once.
  for (const titleTerms of new Set(candidates.map((candidate) => candidate.titleTerms))) {
    for (const term of titleTerms) {
      if (ownTerms.has(term) && !COMMON_WORDS.has(term)) subjects.add(term);
    }
  }
  if (subjects.size === 0) return () => true;
  return ({ titleTerms }) => {
    for (const term of titleTerms) if (subjects.has(term)) return true;
    return false;
  };
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
