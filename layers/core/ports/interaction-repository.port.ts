import type { Rollup } from '../domain/analytics';
import type { DomainEvent } from '../domain/events';
import type { Feedback, Interaction } from '../domain/interaction';
import type { Page, PageRequest } from '../domain/pagination';
import type { ConversationTurn } from './answerer.port';

export interface InteractionFilter {
  readonly agentId?: string;
  /** Inclusive start. */
  readonly from?: Date;
  /** Exclusive end. */
  readonly to?: Date;
  /** `none`: interactions without feedback (the spec's `feedback=null`). */
  readonly feedback?: Feedback | 'none';
  /** One conversation's interactions only. */
  readonly sessionId?: string;
  /** Only what one person (a signed-in user) or one program (an API key) asked. */
  readonly askedBy?: AskedBy;
}

/** Who asked a question: the interaction's `user_id` or its `key_id`. */
export type AskedBy =
  | { readonly kind: 'user'; readonly userId: string }
  | { readonly kind: 'key'; readonly keyId: string };

/** Interactions of one organization; writes carry their events (the outbox). */
export interface InteractionRepository {
  create(orgId: string, interaction: Interaction, events: readonly DomainEvent[]): Promise<void>;
  get(orgId: string, id: string): Promise<Interaction | null>;
  /** Newest first. */
  list(orgId: string, filter: InteractionFilter, page: PageRequest): Promise<Page<Interaction>>;
  /**
   * Sets feedback if the interaction is still at `expectedFeedback` (so
   * rollups count each change once); `null` when missing or changed meanwhile.
   */
  setFeedback(
    orgId: string,
    id: string,
    change: {
      readonly expectedFeedback: Feedback | null;
      readonly feedback: Feedback;
      readonly comment: string | null;
      readonly events: readonly DomainEvent[];
    },
  ): Promise<Interaction | null>;
}

/** A session's last turns and who started it (`user:<id>` or `api_key`; null for a session kept before that was recorded). */
export interface SessionTurns {
  readonly turns: ConversationTurn[];
  readonly startedBy: string | null;
}

/** A session's last turns, kept as one small item. */
export interface SessionHistory {
  turns(orgId: string, sessionId: string): Promise<SessionTurns>;
  /** Appends a turn; the first append records `startedBy`, later ones keep it. */
  append(
    orgId: string,
    sessionId: string,
    turn: ConversationTurn,
    at: string,
    startedBy: string,
  ): Promise<void>;
}

/** Hourly rollups per organization and agent, updated with each interaction (ARCHITECTURE.md: analytics never scans interactions). */
export interface AnalyticsRollups {
  recordInteraction(orgId: string, interaction: Interaction): Promise<void>;
  /** Moves one interaction's feedback from `previous` to `next` in its hour's counters. */
  recordFeedback(
    orgId: string,
    interaction: Interaction,
    previous: Feedback | null,
    next: Feedback,
  ): Promise<void>;
  /** The rollups of every hour in [from, to), of one agent or all. */
  read(
    orgId: string,
    range: { readonly from: Date; readonly to: Date },
    agentId?: string,
  ): Promise<HourlyRollup[]>;
}

export interface HourlyRollup {
  readonly hour: Date;
  readonly agentId: string;
  readonly rollup: Rollup;
}
