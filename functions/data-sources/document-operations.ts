import { operationsWith } from '../../layers/core/http/operation';
import { jsonResponse } from '../../layers/core/http/responses';
import {
  deleteSourceDocuments,
  reindexSourceDocument,
} from '../../layers/core/use-cases/data-sources/source-documents';
import { deleteDocumentsBody, deleteDocumentsResult, documentResource } from './document.schema';
import type { DataSourcesDependencies } from './wiring';

const operation = operationsWith<DataSourcesDependencies>();

/**
 * A file source's documents changed: several deleted, one indexed again.
 * Listing documents and previewing chunks read the index, so the `search`
 * function answers those (functions/search/document-operations.ts).
 */
export const documentOperations = {
  deleteDocuments: operation({
    summary:
      'Delete several files of a file source, each with its chunks, bytes and record. Each file is deleted on its own: those that fail are listed with the reason and left whole; sending the same list again finishes the job',
    pathIds: { id: 'dataSource' },
    body: deleteDocumentsBody,
    responses: {
      200: {
        description: 'What was deleted, and what failed and why',
        schema: deleteDocumentsResult,
      },
    },
    async handle({ params, body, principal, deps }) {
      return jsonResponse(
        200,
        await deleteSourceDocuments(deps, principal.orgId, params.id ?? '', body.document_ids),
      );
    },
  }),
  reindexDocument: operation({
    summary:
      "Index an uploaded file again from its stored bytes: it is `processing` at once, then `indexed` or `failed`. A synced source's documents are read again by syncing it",
    pathIds: { id: 'dataSource', document_id: 'document' },
    responses: {
      202: { description: 'The document, now processing', schema: documentResource },
    },
    async handle({ params, principal, deps }) {
      return jsonResponse(
        202,
        await reindexSourceDocument(
          deps,
          principal.orgId,
          params.id ?? '',
          params.document_id ?? '',
        ),
      );
    },
  }),
};
