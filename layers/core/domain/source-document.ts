import type { UploadedFileStatus } from './uploaded-file';

/**
 * One document of a data source as people manage it: an uploaded file (from
 * its record, whatever its state) or a document a sync indexed (a crawled
 * page, a connector's item, a knowledge-base article), from the index.
 */
export interface SourceDocument {
  readonly id: string;
  readonly data_source_id: string;
  /** `file`: uploaded, with a record; `indexed`: read by the source's sync. */
  readonly origin: 'file' | 'indexed';
  /** A file's name; a synced document's title. */
  readonly name: string;
  /** Where the document opens: a file's content route (relative to the API), a page's address. */
  readonly url: string | null;
  /** A synced document is in the index, so always `indexed`. */
  readonly status: UploadedFileStatus;
  readonly chunks_indexed: number;
  /** A file's bytes; `null` for a file not yet arrived and for synced documents. */
  readonly size_bytes: number | null;
  /** A file's last change; `null` for synced documents (the index keeps no dates). */
  readonly updated_at: string | null;
  /** Why a file could not be indexed. */
  readonly error: string | null;
}

export const SOURCE_DOCUMENT_SORTS = ['name', 'updated', 'size', 'chunks'] as const;
export type SourceDocumentSort = (typeof SOURCE_DOCUMENT_SORTS)[number];

export const SORT_ORDERS = ['asc', 'desc'] as const;
export type SortOrder = (typeof SORT_ORDERS)[number];

export const SOURCE_DOCUMENT_LIMITS = {
  /** Longest search text. */
  queryMax: 200,
  /** Documents deleted by one request. */
  bulkDeleteMax: 100,
  /** Chunks one preview shows at most. */
  previewMax: 100,
  previewDefault: 20,
} as const;

export interface SourceDocumentQuery {
  /** Case-insensitive text found in the name or the address. */
  readonly q?: string | undefined;
  readonly status?: UploadedFileStatus | undefined;
  /** @default 'updated' */
  readonly sort?: SourceDocumentSort | undefined;
  /** @default 'desc' for `updated`, `size` and `chunks` (largest, newest first); 'asc' for `name` */
  readonly order?: SortOrder | undefined;
}

/** Compared by the chosen field; documents without it (a synced page's size) come last either way. */
function sortValue(document: SourceDocument, sort: SourceDocumentSort): string | number | null {
  switch (sort) {
    case 'name':
      return document.name.toLocaleLowerCase();
    case 'updated':
      return document.updated_at;
    case 'size':
      return document.size_bytes;
    case 'chunks':
      return document.chunks_indexed;
  }
}

/**
 * The documents a query asks for, in its order. Ties keep a stable order
 * by name then id, so pages do not shuffle between requests.
 *
 * @example selectSourceDocuments(documents, { q: 'guide', sort: 'size' })
 */
export function selectSourceDocuments(
  documents: readonly SourceDocument[],
  query: SourceDocumentQuery,
): SourceDocument[] {
  const needle = query.q?.trim().toLocaleLowerCase() ?? '';
  const sort = query.sort ?? 'updated';
  const order = query.order ?? (sort === 'name' ? 'asc' : 'desc');
  const direction = order === 'asc' ? 1 : -1;
  const matching = documents.filter(
    (document) =>
      (query.status === undefined || document.status === query.status) &&
      (needle === '' ||
        document.name.toLocaleLowerCase().includes(needle) ||
        (document.url?.toLocaleLowerCase().includes(needle) ?? false)),
  );
  return matching.sort((a, b) => {
    const left = sortValue(a, sort);
    const right = sortValue(b, sort);
    if (left !== right) {
      if (left === null) return 1;
      if (right === null) return -1;
      return (left < right ? -1 : 1) * direction;
    }
    return a.name.localeCompare(b.name) || a.id.localeCompare(b.id);
  });
}
