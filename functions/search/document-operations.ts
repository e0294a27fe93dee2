import { SOURCE_DOCUMENT_LIMITS } from '../../layers/core/domain/source-document';
import { operationsWith } from '../../layers/core/http/operation';
import { pageRequest } from '../../layers/core/http/pagination.schema';
import { jsonResponse } from '../../layers/core/http/responses';
import {
  listSourceDocuments,
  previewDocumentChunks,
} from '../../layers/core/use-cases/data-sources/source-documents';
import {
  documentChunks,
  documentChunksQuery,
  documentList,
  listDocumentsQuery,
} from '../data-sources/document.schema';
import type { SearchDependencies } from './wiring';

const operation = operationsWith<SearchDependencies>();

/**
 * A data source's documents as the index holds them (and a file source's
 * records), and one document's chunks: `/api/v1/data-sources/:id/documents`.
 * Answered here, beside the index, so the data-sources function stays a
 * light one outside the search domain's network.
 */
export const documentOperations = {
  listDocuments: operation({
    summary:
      "List a data source's documents: a file source's uploaded files (in every state), any other source's documents as its syncs indexed them. Search with `q`, filter by `status`, order by `sort` and `order`",
    pathIds: { id: 'dataSource' },
    query: listDocumentsQuery,
    responses: {
      200: {
        description:
          'A page of documents; by default the most recently changed first (`sort=updated`, `order=desc`), documents without the sorted field last',
        schema: documentList,
      },
    },
    async handle({ params, query, principal, deps }) {
      const page = pageRequest(query);
      const result = await listSourceDocuments(
        deps,
        principal.orgId,
        params.id ?? '',
        { q: query.q, status: query.status, sort: query.sort, order: query.order },
        page,
      );
      return jsonResponse(200, { documents: result.items, total: result.total, ...page });
    },
  }),
  getDocumentChunks: operation({
    summary: "Preview a document's chunks, in reading order: the text as retrieval sees it",
    pathIds: { id: 'dataSource', document_id: 'document' },
    query: documentChunksQuery,
    responses: {
      200: {
        description: `The first \`limit\` chunks (default ${SOURCE_DOCUMENT_LIMITS.previewDefault}, at most ${SOURCE_DOCUMENT_LIMITS.previewMax}) and how many there are`,
        schema: documentChunks,
      },
    },
    async handle({ params, query, principal, deps }) {
      const documentId = params.document_id ?? '';
      const preview = await previewDocumentChunks(
        deps,
        principal.orgId,
        params.id ?? '',
        documentId,
        query.limit ?? SOURCE_DOCUMENT_LIMITS.previewDefault,
      );
      return jsonResponse(200, {
        document_id: documentId,
        total: preview.total,
        chunks: preview.chunks.map((chunk) => ({
          chunk_id: chunk.chunk_id,
          position: chunk.position,
          heading_path: chunk.heading_path,
          text: chunk.text,
        })),
      });
    },
  }),
};
