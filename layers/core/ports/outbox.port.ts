import type { DomainEvent } from '../domain/events';

/** Events recorded with one item's change and not yet published. */
export interface OutboxBatch {
  /** Where the events are stored; only the outbox adapter reads it. */
  readonly ref: string;
  readonly orgId: string;
  readonly events: readonly DomainEvent[];
}

/**
 * The transactional outbox (issue 4): events are written inside the same
 * single-item write as the change they describe, so a change is never saved
 * without its events, nor an event without its change.
 */
export interface Outbox {
  /** Batches still to publish, at most `limit`. */
  pending(limit: number): Promise<OutboxBatch[]>;
  /**
   * Clears the batch's events from their item (removing a deleted entity's
   * tombstone), unless more events were added since: those are published
   * with the next sweep, and the published ones again (deliveries dedupe).
   */
  markPublished(batch: OutboxBatch): Promise<void>;
}
