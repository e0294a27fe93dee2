import type { Page, PageRequest } from '../domain/pagination';
import type {
  Delivery,
  DeliveryAttempt,
  DeliveryStatus,
  Webhook,
  WebhookSecrets,
} from '../domain/webhook';

/** Webhooks of one organization; secrets are stored sealed (see SecretSealer) and read only by the dispatcher. */
export interface WebhookRepository {
  create(orgId: string, webhook: Webhook, secrets: WebhookSecrets): Promise<void>;
  get(orgId: string, id: string): Promise<Webhook | null>;
  getWithSecrets(
    orgId: string,
    id: string,
  ): Promise<{ webhook: Webhook; secrets: WebhookSecrets } | null>;
  list(orgId: string, page: PageRequest): Promise<Page<Webhook>>;
  /** Webhooks that receive new events: every one not `disabled` (`failed` ones still receive). */
  listReceiving(orgId: string): Promise<Webhook[]>;
  update(
    orgId: string,
    id: string,
    changes: Partial<Pick<Webhook, 'url' | 'events' | 'description' | 'owner'>> & {
      updated_at: string;
    },
  ): Promise<Webhook | null>;
  replaceSecrets(
    orgId: string,
    id: string,
    secrets: WebhookSecrets,
    last4: string,
    updatedAt: string,
  ): Promise<Webhook | null>;
  /** Sets the status, only from one of `from` (so a late failure never re-disables a re-enabled hook). */
  setStatus(
    orgId: string,
    id: string,
    status: Webhook['status'],
    from: readonly Webhook['status'][],
  ): Promise<void>;
  delete(orgId: string, id: string): Promise<boolean>;
}

/** A delivery with the exact body that is signed and sent on every attempt. */
export interface StoredDelivery {
  readonly delivery: Delivery;
  readonly body: string;
  /** Whether its queue message was sent (a publisher that crashed before sending sends it again). */
  readonly queued: boolean;
}

export interface DeliveryRepository {
  /** Creates the delivery unless it exists (its id derives from webhook and event); returns what is stored. */
  createIfAbsent(
    orgId: string,
    delivery: Delivery,
    body: string,
  ): Promise<{ created: boolean; stored: StoredDelivery }>;
  markQueued(orgId: string, webhookId: string, deliveryId: string): Promise<void>;
  get(orgId: string, webhookId: string, deliveryId: string): Promise<StoredDelivery | null>;
  list(
    orgId: string,
    webhookId: string,
    filter: { status?: DeliveryStatus },
    page: PageRequest,
  ): Promise<Page<Delivery>>;
  /**
   * Appends an attempt and moves the delivery on, only while it is `pending`;
   * `false` when it had already ended (another copy of the message got there first).
   */
  recordAttempt(
    orgId: string,
    webhookId: string,
    deliveryId: string,
    attempt: DeliveryAttempt,
    next: { status: DeliveryStatus; next_attempt_at: string | null; failure_reason: string | null },
  ): Promise<boolean>;
  /** Ends a pending delivery without an attempt (its webhook was deleted or disabled). */
  cancel(
    orgId: string,
    webhookId: string,
    deliveryId: string,
    reason: string,
    at: string,
  ): Promise<void>;
  /**
   * The delivery manual retry: a delivery that has not succeeded — `failed`,
   * `cancelled`, or `pending` after at least one attempt (waiting for its
   * next) — becomes `pending` with `retried_at` = `at`; `null` when it was
   * delivered, or pending and not yet attempted.
   */
  reopen(
    orgId: string,
    webhookId: string,
    deliveryId: string,
    at: string,
  ): Promise<Delivery | null>;
}

/** Envelope encryption of small secrets: the cloud seals with KMS, one machine with a local master key. */
export interface SecretSealer {
  /** Seals `plaintext`, bound to `context`: the sealed value opens only with the same context. */
  seal(plaintext: string, context: Readonly<Record<string, string>>): Promise<string>;
  open(sealed: string, context: Readonly<Record<string, string>>): Promise<string>;
}

/** The message that carries one delivery through the deliveries queue. */
export interface DeliveryMessage {
  readonly org_id: string;
  readonly webhook_id: string;
  readonly delivery_id: string;
  /** The delivery's `retried_at` when the message was sent; absent before any retry by hand. */
  readonly retried_at?: string;
}

/** What the dispatcher needs of a received queue message beyond acknowledging it. */
export interface MessageVisibility {
  /** SQS `ChangeMessageVisibility`: the message comes back after `seconds`. */
  change(receiptHandle: string, seconds: number): Promise<void>;
}

/** What webhook management does with deliveries: list, read, and retry by hand. */
export type DeliveryRecords = Pick<DeliveryRepository, 'get' | 'list' | 'markQueued' | 'reopen'>;
