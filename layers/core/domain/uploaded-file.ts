/**
 * A file uploaded to a `file` data source. Its record is written when
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
  /** File upload ≤ 50 MiB. */
  maxBytes: 50 * 1024 * 1024,
  /** A presigned upload is good this long: enough for 50 MiB on a slow link, short enough to leak little. */
  urlTtlSeconds: 15 * 60,
  filenameMax: 255,
  /** Files presigned by one request, one Write request of its key's limit (an answer of about 100 KB). */
  batchMax: 100,
  contentTypeMax: 255,
  /** A download of a cited file is good this long: enough to open it, short enough to leak little. */
  downloadTtlSeconds: 5 * 60,
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

/**
 * Where an uploaded file's citations point: the API route that answers with
 * a short-lived download of the stored file. Kept in the index as this path
 * (the service learns its public address per request in the cloud), and made
 * absolute by `absoluteDocumentUrl` when a source is shown.
 */
export function uploadedFileContentPath(dataSourceId: string, documentId: string): string {
  return `/api/v1/data-sources/${dataSourceId}/files/${documentId}/content`;
}

const CONTENT_ROUTE = '/api/v1/data-sources/ds_[0-9a-z]{26}/files/doc_[0-9a-z]{26}/content';
const CONTENT_PATH = new RegExp(`^${CONTENT_ROUTE}$`);

/**
 * A source's `document_url` as a client follows it: an uploaded file's
 * content path joined to the service's public origin; any other address as
 * indexed. An unknown origin leaves the path relative to the API.
 *
 * @example absoluteDocumentUrl('/api/v1/data-sources/ds_…/files/doc_…/content', 'https://svc.example') // 'https://svc.example/api/v1/…'
 */
export function absoluteDocumentUrl(url: string | null, origin: string): string | null {
  return url !== null && CONTENT_PATH.test(url) ? `${origin.replace(/\/+$/, '')}${url}` : url;
}

/** The same route after an origin's path (an API Gateway stage). */
const CONTENT_PATH_END = new RegExp(`${CONTENT_ROUTE}$`);

/** Is `url` an uploaded file's content link (relative, or made absolute with any origin and stage)? */
export function isUploadedFileLink(url: string | null): boolean {
  if (url === null) return false;
  return CONTENT_PATH_END.test(URL.canParse(url) ? new URL(url).pathname : url);
}

/** The file's name without its last extension (`express.md` → `express`). */
function stemOf(filename: string): string {
  const dot = filename.lastIndexOf('.');
  return dot > 0 ? filename.slice(0, dot) : filename;
}

/**
 * What a person recognises an uploaded file by: its name, then what its
 * content calls itself (first heading, PDF title) when that says something
 * the name does not. A README is named `express.md — Express`, not by its
 * first heading alone; a plain `notes.txt` stays `notes.txt`.
 *
 * @example uploadedFileTitle('express.md', 'Express') // 'express.md — Express'
 * @example uploadedFileTitle('notes.txt', 'notes') // 'notes.txt'
 */
export function uploadedFileTitle(filename: string, parsedTitle: string): string {
  const name = filename.trim();
  const title = parsedTitle.trim();
  // Exactly the stem is what parsers fall back to without a title; `Express` over `express.md` says more.
  if (title === '' || title === 'Untitled' || title === stemOf(name) || title === name) return name;
  return `${name}${UPLOADED_TITLE_SEPARATOR}${title}`;
}

/** Between an uploaded file's name and the title its content gives itself. */
export const UPLOADED_TITLE_SEPARATOR = ' — ';

/**
 * How a stored file is served to a browser: shown in place (`inline`) under
 * its own name. The quoted `filename` keeps to printable ASCII (other
 * characters become `_`, quotes and backslashes are dropped); `filename*`
 * (RFC 6266, RFC 8187) carries the exact name for browsers that read it.
 *
 * @example inlineContentDisposition('Prix été.pdf') // `inline; filename="Prix _t_.pdf"; filename*=UTF-8''Prix%20%C3%A9t%C3%A9.pdf`
 */
export function inlineContentDisposition(filename: string): string {
  const ascii = filename.replace(/["\\]/g, '').replace(/[^\x20-\x7e]/g, '_');
  const exact = encodeURIComponent(filename).replace(
    /['()*]/g,
    (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `inline; filename="${ascii}"; filename*=UTF-8''${exact}`;
}
