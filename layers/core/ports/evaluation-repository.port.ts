import type {
  Evaluation,
  EvaluationAsker,
  EvaluationItem,
  EvaluationQuestion,
  EvaluationTotals,
  QuestionResult,
} from '../domain/evaluation';
import type { DomainEvent } from '../domain/events';
import type { Page, PageRequest } from '../domain/pagination';

/** Evaluation runs (issue 11 item 5) and their questions, in their organization's partition. */
export interface EvaluationRepository {
  /**
   * Stores the questions, then the run: a run is only visible once
   * every question is written, so a failed create leaves no run behind.
   */
  create(
    orgId: string,
    evaluation: Evaluation,
    asker: EvaluationAsker,
    questions: readonly EvaluationQuestion[],
  ): Promise<void>;
  get(orgId: string, id: string): Promise<Evaluation | null>;
  /** Who started the run. */
  askerOf(orgId: string, id: string): Promise<EvaluationAsker | null>;
  /** Newest first. */
  list(orgId: string, page: PageRequest): Promise<Page<Evaluation>>;
  /** Questions `offset` … `offset + limit - 1`, in set order. */
  items(orgId: string, id: string, page: PageRequest): Promise<EvaluationItem[]>;
  /** `queued` → `running`, stamping `started_at`; `null` when the run was not queued. */
  markRunning(orgId: string, id: string, at: string): Promise<Evaluation | null>;
  /**
   * Records a question's result unless it has one already (a question
   * is scored once, whatever redeliveries happen); `false` when it had one.
   * `completed` is the run's progress after it.
   */
  recordResult(
    orgId: string,
    id: string,
    index: number,
    result: QuestionResult,
    completed: number,
  ): Promise<boolean>;
  /**
   * Ends a running (or queued) run with its totals or its error, and its
   * `eval.completed` event in the same write; `null` when it had ended already.
   */
  finish(
    orgId: string,
    id: string,
    end: {
      readonly status: 'completed' | 'failed';
      readonly totals: EvaluationTotals;
      readonly error: Evaluation['error'];
      /** Questions with a result. */
      readonly completed: number;
      readonly at: string;
      readonly events: readonly DomainEvent[];
    },
  ): Promise<Evaluation | null>;
  /** Removes a run whose message could not be sent, questions included. */
  discard(orgId: string, id: string): Promise<void>;
}
