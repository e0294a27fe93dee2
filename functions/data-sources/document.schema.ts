import * as z from 'zod/mini';
import {
  SORT_ORDERS,
  SOURCE_DOCUMENT_LIMITS,
  SOURCE_DOCUMENT_SORTS,
} from '../../layers/core/domain/source-document';
import { UPLOADED_FILE_STATUSES } from '../../layers/core/domain/uploaded-file';
import { paginationQuery } from '../../layers/core/http/pagination.schema';
import { queryInteger } from '../../layers/core/http/validation';

/** GET /api/v1/data-sources/:id/documents */
export const listDocumentsQuery = z.strictObject({
  ...paginationQuery,
  /** Text found in the name (a file's name, a page's title) or the address, ignoring case. */
  q: z.optional(z.string().check(z.maxLength(SOURCE_DOCUMENT_LIMITS.queryMax))),
  status: z.optional(z.enum(UPLOADED_FILE_STATUSES)),
  sort: z.optional(z.enum(SOURCE_DOCUMENT_SORTS)),
  order: z.optional(z.enum(SORT_ORDERS)),
});

export const documentResource = z.object({
  id: z.string(),
  data_source_id: z.string(),
  /** `file`: an upload of a file source; `indexed`: read by the source's sync (a crawled page, a connector's item). */
  origin: z.enum(['file', 'indexed']),
  /** A file's name; a synced document's title. */
  name: z.string(),
  /** Where it opens: a file's content route (relative to the API's origin), a page's address. */
  url: z.nullable(z.string()),
  status: z.enum(UPLOADED_FILE_STATUSES),
  chunks_indexed: z.int(),
  /** A file's size; `null` before its upload arrives and for synced documents. */
  size_bytes: z.nullable(z.int()),
  /** A file's last change; `null` for synced documents. */
  updated_at: z.nullable(z.string()),
  error: z.nullable(z.string()),
});

export const documentList = z.object({
  documents: z.array(documentResource),
  total: z.int(),
  limit: z.int(),
  offset: z.int(),
});

const documentId = z.string().check(z.regex(/^doc_[0-9a-z]{26}$/, 'must be a document id (doc_…)'));

/** POST /api/v1/data-sources/:id/documents/delete */
export const deleteDocumentsBody = z.strictObject({
  document_ids: z
    .array(documentId)
    .check(
      z.minLength(1, 'must list at least one document'),
      z.maxLength(
        SOURCE_DOCUMENT_LIMITS.bulkDeleteMax,
        `at most ${SOURCE_DOCUMENT_LIMITS.bulkDeleteMax} documents per request`,
      ),
    ),
});

export const deleteDocumentsResult = z.object({
  /** Deleted now, or found gone already. */
  deleted: z.array(z.string()),
  /** Left as they were, each with the reason: send them again to retry. */
  failed: z.array(z.object({ document_id: z.string(), error: z.string() })),
});

/** GET /api/v1/data-sources/:id/documents/:document_id/chunks */
export const documentChunksQuery = z.strictObject({
  limit: z.optional(queryInteger(1, SOURCE_DOCUMENT_LIMITS.previewMax)),
});

export const documentChunks = z.object({
  document_id: z.string(),
  /** How many chunks the document has in all. */
  total: z.int(),
  chunks: z.array(
    z.object({
      chunk_id: z.string(),
      position: z.int(),
      /** Headings above the chunk, outermost first. */
      heading_path: z.array(z.string()),
      text: z.string(),
    }),
  ),
});
