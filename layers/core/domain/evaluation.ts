import { INTERACTION_LIMITS } from './interaction';
import type { BilledTo } from './model-key';
import type { Role } from './user';

/**
 * Issue 11 item 5: an evaluation runs an agent over a question set and
 * scores the answers offline (docs/evaluations.md defines every metric).
 */
export const EVALUATION_LIMITS = {
  /** One run holds at most this many questions. */
  questionsMax: 500,
  /** A question is a query. */
  questionMax: INTERACTION_LIMITS.queryMax,
  expectedAnswerMax: 20_000,
  /** Expected source documents per question, each a URL or a title. */
  expectedSourcesMax: 20,
  expectedSourceMax: 2_048,
  nameMax: 200,
} as const;

/**
 * Receives of a run's message before the queue dead-letters it (the stack
 * and the local runtime); the worker's last one ends the run `failed`.
 */
export const EVAL_MAX_RECEIVE_COUNT = 5;

export const EVALUATION_STATUSES = ['queued', 'running', 'completed', 'failed'] as const;
export type EvaluationStatus = (typeof EVALUATION_STATUSES)[number];

export const FROM_INTERACTIONS_FEEDBACK = ['positive', 'negative', 'any'] as const;
export type FromInteractionsFeedback = (typeof FROM_INTERACTIONS_FEEDBACK)[number];

/** The default and largest number of interactions a set is built from. */
export const FROM_INTERACTIONS_LIMIT = {
  default: 100,
  max: EVALUATION_LIMITS.questionsMax,
} as const;

/** One question of a set, as given or as built from an interaction. */
export interface EvaluationQuestion {
  readonly question: string;
  readonly expected_answer: string | null;
  /** Documents (URL, or title for sources without one) the answer should come from; `null`: not given. */
  readonly expected_sources: readonly string[] | null;
  /** The interaction the question was taken from, or `null`. */
  readonly source_interaction_id: string | null;
}

/**
 * Who started the run: its questions are asked as them, so the
 * interactions they record name the same key or user a query would.
 */
export type EvaluationAsker =
  | { readonly kind: 'api_key'; readonly key_id: string }
  | {
      readonly kind: 'session';
      readonly user_id: string;
      readonly role: Role;
      /** P80 at the time of the start: the agents the user may use; `null`: every agent. */
      readonly agent_ids: readonly string[] | null;
      readonly group_ids: readonly string[];
    };

/** What a run is scored from: per-question metrics (null where undefined) and their usage. */
export interface QuestionMetrics {
  readonly retrieval_recall: number | null;
  readonly citation_precision: number | null;
  readonly citation_recall: number | null;
  readonly answer_support: number | null;
  /** Sentences with content words, and how many of them a cited chunk supports. */
  readonly answer_sentences: number;
  readonly supported_sentences: number;
  readonly answer_f1: number | null;
  /** The answerer's honest "couldn't find" (or the no-sources answer): not scored for support. */
  readonly no_answer: boolean;
}

export interface EvaluationSource {
  readonly chunk_id: string;
  /** Absent on results recorded before sources named their document. */
  readonly document_id?: string;
  readonly data_source_id?: string;
  readonly document_title: string;
  readonly document_url: string | null;
  readonly similarity_score: number;
}

/** One question's outcome, stored once per question index (idempotent). */
export interface QuestionResult {
  readonly status: 'answered' | 'failed';
  readonly interaction_id: string | null;
  readonly response: string | null;
  /** The sources the answer cites, without their text. */
  readonly sources: readonly EvaluationSource[];
  /** The documents retrieval offered the answerer, in rank order (distinct). */
  readonly retrieved_documents: readonly string[];
  readonly metrics: QuestionMetrics | null;
  readonly latency_ms: number | null;
  readonly tokens_input: number;
  readonly tokens_output: number;
  readonly cost_usd: number;
  readonly billed_to: BilledTo | null;
  readonly error: { readonly code: string; readonly message: string } | null;
  readonly answered_at: string;
}

/** A question with its position in the set and, once asked, its result. */
export interface EvaluationItem extends EvaluationQuestion {
  readonly index: number;
  readonly result: QuestionResult | null;
}

export interface EvaluationTotals {
  readonly questions: number;
  readonly answered: number;
  readonly failed: number;
  readonly no_answer: number;
  /** Means over the questions where the metric is defined; `null` when none is. */
  readonly retrieval_recall: number | null;
  readonly citation_precision: number | null;
  readonly citation_recall: number | null;
  /** Supported sentences over counted sentences, all answers together (micro). */
  readonly answer_support: number | null;
  readonly answer_f1: number | null;
  readonly latency_ms: { readonly p50: number | null; readonly p95: number | null };
  /**
   * Questions with a right/wrong verdict (evaluation-verdict.ts), how many
   * were right, and their ratio (`null` when none was judged). Absent on runs
   * completed before verdicts.
   */
  readonly judged?: number;
  readonly right?: number;
  readonly pass_rate?: number | null;
  readonly tokens_input: number;
  readonly tokens_output: number;
  readonly cost_usd: number;
}

/** An evaluation run as stored and returned (without its questions). */
export interface Evaluation {
  readonly id: string;
  readonly name: string | null;
  readonly agent_id: string;
  readonly status: EvaluationStatus;
  readonly question_count: number;
  /** Questions with a result so far. */
  readonly completed_count: number;
  /** How the set was built. */
  readonly source:
    | { readonly type: 'questions' }
    | {
        readonly type: 'interactions';
        readonly agent_id: string;
        readonly feedback: FromInteractionsFeedback;
        readonly since: string | null;
        readonly limit: number;
      };
  readonly totals: EvaluationTotals | null;
  readonly error: { readonly code: string; readonly message: string } | null;
  readonly created_at: string;
  readonly started_at: string | null;
  readonly completed_at: string | null;
}

/** The queue message that runs (or resumes) an evaluation. */
export interface EvaluationRunMessage {
  readonly org_id: string;
  readonly eval_id: string;
}
