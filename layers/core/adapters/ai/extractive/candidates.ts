import { analyze } from '../../../domain/retrieval/text-analysis';
import type { AnswerSource } from '../../../ports/answerer.port';
import { type PassageUnit, passageUnits } from './passage-units';
import {
  hasNumber,
  identifiersIn,
  isNameOfKind,
  type NameKind,
  type QuestionFocus,
} from './question-focus';

/**
 * The units of the offered passages as candidates for quoting: each with the
 * terms it holds (in its text, inside its code's compound names, in the
 * headings above it and its document's title), the identifiers it names, the
 * heading that may lead its quote, and how well it holds what the question
 * asks for.
 */

/**
 * Question words and chat filler that the index analyzer keeps (it drops
 * only Lucene's 33 stopwords) but that say nothing about what is asked:
 * "what", "how", "tell me" must not make a sentence look relevant.
 */
export const QUESTION_FILLER: ReadonlySet<string> = new Set(
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

/**
 * A statement that settles a yes-or-no question one way or the other: a
 * rule, a default, or the documentation's advice ("is it ok to use git://?"
 * is settled by "… is discouraged").
 */
const SETTLES =
  /\b(?:not|no|never|only|cannot|can't|must|always|by default|supports?|requires?|required|optional|allowed|recommended|discouraged|deprecated|safe|unsafe|insecure)\b/i;

/** A heading that asks is a FAQ's question: it does not lead a quote. */
const QUESTION_END = /[?？]["'”’)\]]*$/u;

/** Headings longer than this are sentences, not names to lead a quote with. */
const HEADING_MAX_WORDS = 12;
/** A code block of names is this short: a path per platform, not a program. */
const NAMES_ONLY_LINES = 3;

export interface Candidate {
  readonly source: AnswerSource;
  readonly unit: PassageUnit;
  /** Which document the unit is from: units of one document are quoted together. */
  readonly document: string;
  readonly terms: ReadonlySet<string>;
  readonly headingTerms: ReadonlySet<string>;
  /** The words inside the unit's compound names (`parse` of `xmltodict.parse`), which count for less. */
  readonly partTerms: ReadonlySet<string>;
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

export interface ScoredCandidate extends Candidate {
  readonly score: number;
}

/**
 * The words inside the compound names code writes: `xmltodict.parse(…)`,
 * `item_callback`, `getUserName`. The analyzer keeps a dotted or snake_case
 * name whole, as the index does; a question says "parse" or "callback".
 */
function identifierWords(text: string): string {
  return text.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/[^\p{L}\p{N}\s]+/gu, ' ');
}

export function meaningfulTerms(text: string): Set<string> {
  return new Set(analyze(text).filter((term) => !QUESTION_FILLER.has(term)));
}

/** The document a source belongs to: its address, else its title. */
export function documentOf(source: AnswerSource): string {
  return source.document_id ?? source.document_url ?? source.document_title;
}

/** How well a name of another kind than the one asked for ("which env var", a `--flag`) holds the answer. */
const OTHER_KIND = 0.6;

/** How well a unit holds what the question's focus asks for, 0–1. */
function focusMatch(
  focus: QuestionFocus,
  unit: PassageUnit,
  text: string,
  identifiers: readonly string[],
  kind: NameKind | undefined,
): number {
  switch (focus) {
    case 'procedure':
      if (unit.kind === 'lead' && unit.codeLines > 0) return 1;
      if (unit.term !== undefined) return 1;
      if (unit.kind === 'code') return 0.8;
      return identifiers.length > 0 ? 0.6 : 0;
    case 'name':
      // The kind of name asked for ("which env var") is the answer; a name of another kind is less likely.
      if (kind !== undefined && identifiers.length > 0) {
        return identifiers.some((identifier) => isNameOfKind(identifier, kind)) ? 1 : OTHER_KIND;
      }
      // A described term names the thing and says what it does; an example only shows it used.
      if (unit.term !== undefined) return 1;
      // A short block of names alone (a path, a setting) is the name itself.
      if (unit.kind === 'code') return namesOnly(unit) ? 1 : 0.4;
      return identifiers.length > 0 ? 0.8 : 0;
    case 'number':
      // A default or a limit is a number, or a named value ("defaults to --mixed").
      if (hasNumber(text)) return 1;
      return identifiers.length > 0 ? 0.6 : 0;
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

/** A code block of at most a few lines, each one identifier: `~/.cache/pip`, `PIP_CONFIG_FILE=…`. */
function namesOnly(unit: PassageUnit): boolean {
  const lines = unit.parts
    .slice(unit.parts.length - unit.codeLines)
    .filter((line) => !line.trim().startsWith('```'));
  return (
    lines.length > 0 &&
    lines.length <= NAMES_ONLY_LINES &&
    lines.every((line) => identifiersIn(line.trim()).length === 1 && !/\s/.test(line.trim()))
  );
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

export function candidatesOf(
  source: AnswerSource,
  focus: QuestionFocus,
  kind?: NameKind,
): Candidate[] {
  const headingTerms = meaningfulTerms((source.heading_path ?? []).join('\n'));
  // A file's name is one token to the analyzer ("pip-caching.md"); its words name the subject.
  const titleTerms = new Set([
    ...meaningfulTerms(source.document_title),
    ...meaningfulTerms(identifierWords(source.document_title)),
  ]);
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
      partTerms: meaningfulTerms(identifierWords(text)),
      namedTerms: meaningfulTerms(named.join(' ').replace(/[-_.]/g, ' ')),
      headingTerms,
      titleTerms,
      leadingHeading,
      focus: focusMatch(focus, unit, text, named, kind),
    };
  });
}
