/**
 * D25: a file uploaded to a `file` data source. Its record is written when
 * the upload is presigned (so the upload's name and type are known before
 * any byte arrives) and follows the file through ingestion.
 */
export const UPLOADED_FILE_STATUSES = [
  'awaiting_upload',
  'processing',
  'indexed',
  'failed',
] as const;
export type UploadedFileStatus = (typeof UPLOADED_FILE_STATUSES)[number];

export interface UploadedFile {
  /** The document id (`doc_…`): the file's chunks carry it, citations name it. */
  readonly id: string;
  readonly data_source_id: string;
  readonly filename: string;
  /** As declared when the upload was presigned; `null` when not declared. */
  readonly content_type: string | null;
  readonly status: UploadedFileStatus;
  /** Bytes received; `null` until the upload arrives. */
  readonly size_bytes: number | null;
  /** SHA-256 (hex) of the bytes last indexed: re-uploads of the same bytes are not re-embedded. */
  readonly sha256: string | null;
  readonly chunks_indexed: number;
  /** Why the file could not be indexed (`failed`), else `null`. */
  readonly error: string | null;
  /** When the presigned upload stops being accepted. */
  readonly upload_expires_at: string;
  readonly created_at: string;
  readonly updated_at: string;
  readonly indexed_at: string | null;
}

export const FILE_UPLOAD_LIMITS = {
  /** D17: file upload ≤ 50 MiB. */
  maxBytes: 50 * 1024 * 1024,
  /** A presigned upload is good this long: enough for 50 MiB on a slow link, short enough to leak little. */
  urlTtlSeconds: 15 * 60,
  filenameMax: 255,
  /** P108: files presigned by one request, one Write request of its key's limit (an answer of about 100 KB). */
  batchMax: 100,
  contentTypeMax: 255,
} as const;

const OBJECT_KEY = /^files\/(org_[0-9a-z]{26})\/(ds_[0-9a-z]{26})\/(doc_[0-9a-z]{26})$/;

/**
 * Where an uploaded file's bytes are stored. The key holds only ids (no file
 * name), so it never needs escaping and the S3 event that announces the
 * upload says by itself whose file it is.
 */
export function fileObjectKey(orgId: string, dataSourceId: string, documentId: string): string {
  return `files/${orgId}/${dataSourceId}/${documentId}`;
}

/** Everything of one data source's files sits under this prefix. */
export function dataSourceFilesPrefix(orgId: string, dataSourceId: string): string {
  return `files/${orgId}/${dataSourceId}/`;
}

/** The ids in a file's object key; `null` for any other key. */
export function parseFileObjectKey(
  key: string,
): { orgId: string; dataSourceId: string; documentId: string } | null {
  const match = OBJECT_KEY.exec(key);
  if (!match) return null;
  const [, orgId = '', dataSourceId = '', documentId = ''] = match;
  return { orgId, dataSourceId, documentId };
}
