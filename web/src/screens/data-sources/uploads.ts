import { ApiError } from '../../api/api-error';
import type { components } from '../../api/schema';

export type UploadedFile = components['schemas']['UploadedFile'];

/** Files presigned by one request. */
export const BATCH_MAX = 100;

/**
 * One dropped file on its way: waiting for its ticket, refused before any
 * byte was sent, sending, being indexed, then indexed or failed.
 */
export type UploadPhase = 'waiting' | 'refused' | 'sending' | 'indexing' | 'indexed' | 'failed';

export interface Upload {
  /** Stable for the row (two files may share a name). */
  readonly key: string;
  readonly name: string;
  readonly size: number;
  readonly phase: UploadPhase;
  /** 0 to 1 while sending. */
  readonly sent: number;
  /** Why it was refused or failed; the chunk count once indexed. */
  readonly message: string | null;
  readonly documentId: string | null;
  /**
   * The record's `updated_at` when the upload was presigned (the service's
   * clock). A file that replaces another keeps that one's record, still
   * `indexed` from before: only a change after this moment is this upload's.
   */
  readonly presignedAt?: string | null;
}

/** What a batch entry declares: the name, the browser's type when it knows one, and the size. */
export function batchEntry(file: { name: string; type: string; size: number }) {
  return {
    filename: file.name,
    ...(file.type ? { content_type: file.type } : {}),
    size_bytes: file.size,
  };
}

/** The batches of at most `size` a list is sent in, in order. */
export function batches<T>(items: readonly T[], size = BATCH_MAX): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += size)
    out.push(items.slice(start, start + size));
  return out;
}

/**
 * The entries a 400 refused (`details.fields`, `files.3.filename`), each
 * with what is wrong with it, by index in the batch. The service checks every
 * entry before any is kept, so the others can be sent again alone.
 */
export function refusedEntries(error: unknown): Map<number, string> {
  const refused = new Map<number, string>();
  if (!(error instanceof ApiError) || error.status !== 400) return refused;
  for (const field of error.fields) {
    const match = /^files\.(\d+)\.(\w+)$/.exec(field.path);
    if (!match) continue;
    const index = Number(match[1]);
    const message = sentenceOf(match[2] ?? '', field.message);
    if (!refused.has(index)) refused.set(index, message);
  }
  return refused;
}

/** A refusal of one entry as a person reads it. */
function sentenceOf(field: string, message: string): string {
  if (field === 'size_bytes' && /at least|>=\s*1|too small/i.test(message)) {
    return 'The file is empty.';
  }
  const text = message.charAt(0).toUpperCase() + message.slice(1);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** An upload after the file list said where its document is. */
export function settle(upload: Upload, file: UploadedFile | undefined): Upload {
  if (!file || upload.phase !== 'indexing') return upload;
  if (upload.presignedAt && Date.parse(file.updated_at) <= Date.parse(upload.presignedAt)) {
    return upload;
  }
  if (file.status === 'indexed') {
    const chunks = file.chunks_indexed;
    return {
      ...upload,
      phase: 'indexed',
      message: `${chunks.toLocaleString()} ${chunks === 1 ? 'chunk' : 'chunks'}`,
    };
  }
  if (file.status === 'failed') {
    return { ...upload, phase: 'failed', message: file.error ?? 'It could not be indexed.' };
  }
  return upload;
}

/** The row's status in words. */
export function describeUpload(upload: Upload): string {
  switch (upload.phase) {
    case 'waiting':
      return 'Waiting';
    case 'refused':
      return `Refused: ${upload.message ?? ''}`.trim();
    case 'sending':
      return `Uploading, ${Math.floor(upload.sent * 100)}%`;
    case 'indexing':
      // The documents table's word for the same moment.
      return 'Indexing';
    case 'indexed':
      return `Indexed${upload.message ? `, ${upload.message}` : ''}`;
    case 'failed':
      return `Failed: ${upload.message ?? ''}`.trim();
  }
}

/** A one-line summary for screen readers: "3 of 5 files indexed, 1 failed, 1 refused". */
export function summarizeUploads(uploads: readonly Upload[]): string {
  const count = (phase: UploadPhase) => uploads.filter((upload) => upload.phase === phase).length;
  const parts = [`${count('indexed')} of ${uploads.length} files indexed`];
  const busy = count('waiting') + count('sending') + count('indexing');
  if (busy > 0) parts.push(`${busy} in progress`);
  if (count('failed') > 0) parts.push(`${count('failed')} failed`);
  if (count('refused') > 0) parts.push(`${count('refused')} refused`);
  return parts.join(', ');
}

/** Bytes as people read them: 512 B, 12.5 KB, 3.2 MB. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value >= 10 ? Math.round(value) : value.toFixed(1)} ${units[unit]}`;
}
