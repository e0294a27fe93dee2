/** A queue that accepts messages (SQS in the cloud, the local queue on one machine). */
export interface MessageQueue<T> {
  /** Sends one message; `delaySeconds` keeps it invisible that long (SQS semantics, max 900). */
  send(message: T, options?: { delaySeconds?: number }): Promise<void>;
}

/** The message a sync job travels as on the sync queue. */
export interface SyncJobMessage {
  readonly org_id: string;
  readonly data_source_id: string;
  readonly job_id: string;
}

export type SyncJobQueue = MessageQueue<SyncJobMessage>;
