import type { components } from '../../api/schema';
import type { Upload } from './uploads';

export type SourceDocument = components['schemas']['SourceDocument'];
export type DocumentsDeleted = components['schemas']['DocumentsDeleted'];
export type DocumentSort = 'updated' | 'name' | 'size' | 'chunks';
export type DocumentStatus = SourceDocument['status'];

/**
 * A document's state in words. The upload list and the documents table
 * use these same words, so a file never reads "Indexing" in one and
 * "Waiting" in the other.
 */
export const DOCUMENT_STATUS_NAMES: Readonly<Record<DocumentStatus, string>> = {
  awaiting_upload: 'Waiting for upload',
  processing: 'Indexing',
  indexed: 'Indexed',
  failed: 'Failed',
};

/** The orders offered, as the sort menu names them. */
export const SORT_NAMES: Readonly<Record<DocumentSort, string>> = {
  updated: 'Recently changed',
  name: 'Name',
  size: 'Largest',
  chunks: 'Most chunks',
};

/**
 * A row's status while this page is sending its file: the service's record
 * still says "waiting for upload" (or, for a file being replaced, "indexed"
 * from before) while the bytes travel, and for a moment after they arrived;
 * what this page knows is more current until the upload settles.
 */
export function documentStatusWords(
  document: Pick<SourceDocument, 'id' | 'status' | 'error'>,
  uploads: readonly Upload[],
): string {
  // The newest upload of this document (a replaced file may have had several).
  const upload = uploads.find((entry) => entry.documentId === document.id);
  if (upload?.phase === 'waiting' || upload?.phase === 'sending') return 'Uploading';
  if (upload?.phase === 'indexing') return DOCUMENT_STATUS_NAMES.processing;
  const words = DOCUMENT_STATUS_NAMES[document.status];
  return document.status === 'failed' && document.error ? `${words}: ${document.error}` : words;
}

/** The names an upload would replace: those of chosen files the source already has. */
export function namesAlreadyThere(
  chosen: readonly { readonly name: string }[],
  existing: readonly { readonly filename: string }[],
): string[] {
  const present = new Set(existing.map((file) => file.filename));
  return [...new Set(chosen.map((file) => file.name).filter((name) => present.has(name)))];
}

/** "guide.md", "guide.md and notes.txt", "a.md, b.md and 3 more". */
export function listNames(names: readonly string[], shown = 3): string {
  if (names.length <= 1) return names[0] ?? '';
  if (names.length <= shown) return `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
  return `${names.slice(0, shown).join(', ')} and ${names.length - shown} more`;
}

/** What a bulk delete did, in one sentence. */
export function describeDeleted(outcome: DocumentsDeleted): string {
  const deleted = outcome.deleted.length;
  const failed = outcome.failed.length;
  const done = `${deleted} ${deleted === 1 ? 'file' : 'files'} deleted`;
  if (failed === 0) return `${done}.`;
  return `${done}; ${failed} could not be deleted and ${failed === 1 ? 'is' : 'are'} still there.`;
}
