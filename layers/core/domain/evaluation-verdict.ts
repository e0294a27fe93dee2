/**
 * A right/wrong verdict per evaluated question, with its reasons in words,
 * from the same expectations the metrics use (docs/evaluations.md, "Verdicts").
 * The metrics say how much; the verdict says whether the answer did what the
 * question set expected: said the expected answer, cited an expected document,
 * and did not give up where an answer was expected.
 */
import { stripCitations } from './citations';
import type { EvaluationQuestion, QuestionResult } from './evaluation';
import { matches, type ScoredSource } from './evaluation-metrics';
import { isNoAnswer } from './no-answer';
import { analyze, ENGLISH_STOPWORDS, stem, words } from './retrieval/text-analysis';

/**
 * The share of the expected answer's key words the answer must contain when
 * it does not contain the expected answer whole: most of them, so a reworded
 * answer passes and one that misses the point (another product, another
 * policy) does not. Figures are stricter: every one must be there.
 */
export const EXPECTED_WORDS_THRESHOLD = 0.8;

export const VERDICT_OUTCOMES = ['right', 'wrong', 'unjudged'] as const;
export type VerdictOutcome = (typeof VERDICT_OUTCOMES)[number];

export const VERDICT_CHECKS = ['answered', 'expected_answer', 'expected_sources'] as const;
export type VerdictCheckName = (typeof VERDICT_CHECKS)[number];

/** One thing the verdict looked at, whether it held, and why, in a sentence. */
export interface VerdictCheck {
  readonly check: VerdictCheckName;
  readonly passed: boolean;
  readonly reason: string;
}

/** `unjudged` when the question expected nothing that can be checked. */
export interface QuestionVerdict {
  readonly outcome: VerdictOutcome;
  readonly checks: readonly VerdictCheck[];
}

/**
 * Words that state a figure: with a digit, or a number written out. An
 * answer missing one of the expected answer's figures is wrong however many
 * other words it shares ("a five year warranty" for "a two year warranty").
 */
const NUMBER_WORDS: ReadonlySet<string> = new Set([
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
  'twenty',
  'thirty',
  'forty',
  'fifty',
  'sixty',
  'seventy',
  'eighty',
  'ninety',
  'hundred',
  'thousand',
  'million',
  'billion',
  'half',
  'twice',
  'double',
]);

function isFigure(word: string): boolean {
  return /\d/.test(word) || NUMBER_WORDS.has(word);
}

/** At most this many missing words are named in a reason. */
const NAMED_WORDS_MAX = 5;

/** The expected answer's key words: content words, one per stem, as written. */
function keyWords(text: string): Map<string, string> {
  const byStem = new Map<string, string>();
  for (const word of words(stripCitations(text))) {
    if (ENGLISH_STOPWORDS.has(word)) continue;
    const term = stem(word);
    if (!byStem.has(term)) byStem.set(term, word);
  }
  return byStem;
}

function listed(items: readonly string[]): string {
  const named = items.slice(0, NAMED_WORDS_MAX).map((item) => `“${item}”`);
  const more = items.length - named.length;
  return more > 0 ? `${named.join(', ')} and ${more} more` : named.join(', ');
}

/** Whether the answer says the expected answer: whole, or most of its key words. */
function expectedAnswerCheck(response: string, expected: string): VerdictCheck | null {
  const expectedWords = keyWords(expected);
  if (expectedWords.size === 0) return null;
  const phrase = words(stripCitations(expected)).join(' ');
  if (` ${words(stripCitations(response)).join(' ')} `.includes(` ${phrase} `)) {
    return {
      check: 'expected_answer',
      passed: true,
      reason: 'The answer contains the expected answer.',
    };
  }
  const answerWords = new Set(words(stripCitations(response)));
  const missingFigures = [...new Set(words(stripCitations(expected)))].filter(
    (word) => isFigure(word) && !answerWords.has(word),
  );
  const answerTerms = new Set(analyze(stripCitations(response)));
  const missing = [...expectedWords]
    .filter(([term]) => !answerTerms.has(term))
    .map(([, word]) => word);
  const found = expectedWords.size - missing.length;
  const share = `${found} of the expected answer’s ${expectedWords.size} key words`;
  if (missingFigures.length > 0) {
    return {
      check: 'expected_answer',
      passed: false,
      reason: `The answer lacks ${listed(missingFigures)}, which the expected answer states (it has ${share}).`,
    };
  }
  const passed = found / expectedWords.size >= EXPECTED_WORDS_THRESHOLD;
  return {
    check: 'expected_answer',
    passed,
    reason: passed
      ? `The answer has ${share}.`
      : `The answer has only ${share}; missing ${listed(missing)}.`,
  };
}

/** Whether the answer cites at least one of the expected documents. */
function expectedSourcesCheck(
  cited: readonly ScoredSource[],
  expected: readonly string[],
): VerdictCheck {
  const hit = expected.find((name) => cited.some((source) => matches(name, source)));
  if (hit !== undefined) {
    return {
      check: 'expected_sources',
      passed: true,
      reason: `It cites ${listed([hit])}, an expected source.`,
    };
  }
  return {
    check: 'expected_sources',
    passed: false,
    reason:
      cited.length === 0
        ? `It cites no source; expected ${listed([...new Set(expected)])}.`
        : `It cites none of the expected sources (${listed([...new Set(expected)])}).`,
  };
}

/**
 * The verdict on one asked question; `null` for a question that failed or
 * was never asked (the run counts those apart). A question expecting the
 * honest non-answer is right when the agent gives it.
 */
export function judgeQuestion(
  question: Pick<EvaluationQuestion, 'expected_answer' | 'expected_sources'>,
  result: Pick<QuestionResult, 'status' | 'response' | 'sources'> | null,
  noSourcesAnswer: string,
): QuestionVerdict | null {
  if (result?.status !== 'answered') return null;
  const response = result.response ?? '';
  const expectedAnswer = question.expected_answer?.trim() || null;
  const expectedSources = question.expected_sources?.length ? question.expected_sources : null;
  if (!expectedAnswer && !expectedSources) return { outcome: 'unjudged', checks: [] };
  const gaveUp = isNoAnswer(response, noSourcesAnswer);

  if (expectedAnswer && isNoAnswer(expectedAnswer, noSourcesAnswer)) {
    const check: VerdictCheck = {
      check: 'answered',
      passed: gaveUp,
      reason: gaveUp
        ? 'The agent said it could not answer, as expected.'
        : 'The agent answered where it was expected to say it could not.',
    };
    return { outcome: gaveUp ? 'right' : 'wrong', checks: [check] };
  }
  if (gaveUp) {
    return {
      outcome: 'wrong',
      checks: [
        {
          check: 'answered',
          passed: false,
          reason: 'The agent said it could not find the answer in its sources.',
        },
      ],
    };
  }
  const checks = [
    expectedAnswer ? expectedAnswerCheck(response, expectedAnswer) : null,
    expectedSources ? expectedSourcesCheck(result.sources, expectedSources) : null,
  ].filter((check): check is VerdictCheck => check !== null);
  if (checks.length === 0) return { outcome: 'unjudged', checks };
  return { outcome: checks.every((check) => check.passed) ? 'right' : 'wrong', checks };
}

/** The pass rate of judged questions: right over right and wrong; `null` when none was judged. */
export function passRate(verdicts: readonly (QuestionVerdict | null)[]): {
  readonly judged: number;
  readonly right: number;
  readonly pass_rate: number | null;
} {
  const judged = verdicts.filter(
    (verdict) => verdict !== null && verdict.outcome !== 'unjudged',
  ).length;
  const right = verdicts.filter((verdict) => verdict?.outcome === 'right').length;
  return {
    judged,
    right,
    pass_rate: judged === 0 ? null : Math.round((right / judged) * 10_000) / 10_000,
  };
}
