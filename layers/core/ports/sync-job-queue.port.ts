import type { ConnectorType } from '../domain/connector';
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

/**
 * Chunks to remove from the index after a deletion: a whole data
 * source's, or one document's. Only the sync worker holds an index client,
 * so the HTTP families that delete send this instead of deleting chunks.
 */
export type IndexPurgeMessage =
  | {
      readonly org_id: string;
      readonly data_source_id: string;
      readonly purge: 'data_source';
      /**
       * A deleted connector source's grant, still sealed (its
       * organization and data source as context), for the sync worker to
       * revoke at the provider: only it carries the providers' clients.
       */
      readonly revoke?: { readonly type: ConnectorType; readonly sealed_tokens: string };
    }
  | {
      readonly org_id: string;
      readonly data_source_id: string;
      readonly purge: 'document';
      readonly document_id: string;
    };

/**
 * A knowledge-base article changed. `reconcile`: make the index
 * match the article as it is when the worker reads it (its current version
 * when published, nothing otherwise); `remove`: the article is being
 * deleted, its chunks go whatever it holds. Sent by the `kb` function, which
 * carries no chunker, embedder or index client.
 */
export interface KbArticleIndexMessage {
  readonly org_id: string;
  readonly data_source_id: string;
  readonly kb_article_id: string;
  readonly action: 'reconcile' | 'remove';
}

/**
 * An uploaded file to index again from its stored bytes (a person asked
 * for it): the HTTP family that asks carries no parser, embedder or index
 * client, the sync worker does.
 */
export interface FileReindexMessage {
  readonly org_id: string;
  readonly data_source_id: string;
  readonly reindex: 'file';
  readonly document_id: string;
}

/** What the sync queue carries: sync jobs, index purges after deletions, knowledge-base changes, file re-indexing. */
export type SyncQueueMessage =
  | SyncJobMessage
  | IndexPurgeMessage
  | KbArticleIndexMessage
  | FileReindexMessage;

export type SyncJobQueue = MessageQueue<SyncQueueMessage>;
