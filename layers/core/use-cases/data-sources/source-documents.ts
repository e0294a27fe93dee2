import { InvalidRequestError, NotFoundError } from '../../domain/errors';
import {
  type SourceDocument,
  type SourceDocumentQuery,
  selectSourceDocuments,
} from '../../domain/source-document';
import { type UploadedFile, uploadedFileContentPath } from '../../domain/uploaded-file';
import type { Clock } from '../../ports/clock.port';
import type { DataSourceRepository } from '../../ports/data-source-repository.port';
import type { ChunkText, RetrievalIndex } from '../../ports/retrieval-index.port';
import type { SyncJobQueue } from '../../ports/sync-job-queue.port';
import type { UploadedFileRepository } from '../../ports/uploaded-file-repository.port';
import { deleteFile, type FileUploadDependencies } from '../files/file-uploads';

export interface SourceDocumentDependencies extends FileUploadDependencies {
  readonly dataSources: Pick<DataSourceRepository, 'get'>;
  readonly files: UploadedFileRepository;
  /** Read only (the `search` function's): listing a source's synced documents and previewing chunks. */
  readonly retrieval: Pick<RetrievalIndex, 'documents' | 'documentChunks'>;
  readonly syncQueue: SyncJobQueue;
  readonly clock: Clock;
}

async function sourceOf(
  deps: Pick<SourceDocumentDependencies, 'dataSources'>,
  orgId: string,
  dataSourceId: string,
) {
  const source = await deps.dataSources.get(orgId, dataSourceId);
  if (!source) throw new NotFoundError(`No data source ${dataSourceId}`);
  return source;
}

function fileDocument(file: UploadedFile): SourceDocument {
  return {
    id: file.id,
    data_source_id: file.data_source_id,
    origin: 'file',
    name: file.filename,
    url:
      file.status === 'awaiting_upload'
        ? null
        : uploadedFileContentPath(file.data_source_id, file.id),
    status: file.status,
    chunks_indexed: file.chunks_indexed,
    size_bytes: file.size_bytes,
    updated_at: file.updated_at,
    error: file.error,
  };
}

/**
 * Every document of a data source: a file source's uploads from their
 * records (so a file still arriving or refused is listed too), any other
 * source's documents from the index (what its syncs indexed). Chosen,
 * ordered and paged as `query` says.
 */
export async function listSourceDocuments(
  deps: Pick<SourceDocumentDependencies, 'dataSources' | 'files' | 'retrieval'>,
  orgId: string,
  dataSourceId: string,
  query: SourceDocumentQuery,
  page: { readonly limit: number; readonly offset: number },
): Promise<{ items: SourceDocument[]; total: number }> {
  const source = await sourceOf(deps, orgId, dataSourceId);
  const documents =
    source.type === 'file'
      ? (await deps.files.list(orgId, dataSourceId)).map(fileDocument)
      : (await deps.retrieval.documents(orgId, dataSourceId)).map(
          (indexed): SourceDocument => ({
            id: indexed.document_id,
            data_source_id: dataSourceId,
            origin: 'indexed',
            name: indexed.document_title || (indexed.document_url ?? indexed.document_id),
            url: indexed.document_url,
            status: 'indexed',
            chunks_indexed: indexed.chunks,
            size_bytes: null,
            updated_at: null,
            error: null,
          }),
        );
  const selected = selectSourceDocuments(documents, query);
  return {
    items: selected.slice(page.offset, page.offset + page.limit),
    total: selected.length,
  };
}

/** The first `limit` chunks of one document, in reading order, and how many it has. */
export async function previewDocumentChunks(
  deps: Pick<SourceDocumentDependencies, 'dataSources' | 'files' | 'retrieval'>,
  orgId: string,
  dataSourceId: string,
  documentId: string,
  limit: number,
): Promise<{ chunks: ChunkText[]; total: number }> {
  await sourceOf(deps, orgId, dataSourceId);
  const preview = await deps.retrieval.documentChunks(orgId, dataSourceId, documentId, limit);
  if (preview.total === 0) {
    // A file not indexed yet (or refused) exists but has no chunks; anything else is unknown.
    const file = await deps.files.get(orgId, dataSourceId, documentId);
    if (!file) throw new NotFoundError(`No document ${documentId} in data source ${dataSourceId}`);
  }
  return preview;
}

export interface BulkDeleteOutcome {
  readonly deleted: string[];
  readonly failed: { readonly document_id: string; readonly error: string }[];
}

/**
 * Deletes several files of a file source, one after the other. Each
 * deletion stands alone (its chunks, bytes and record, as `deleteFile`), so
 * one that fails leaves that file whole and the others deleted; the answer
 * names each failure and why, and sending the same list again finishes
 * the job (already deleted ids are reported deleted). A synced source's
 * documents come from its sync and are not deleted one by one.
 */
export async function deleteSourceDocuments(
  deps: FileUploadDependencies,
  orgId: string,
  dataSourceId: string,
  documentIds: readonly string[],
): Promise<BulkDeleteOutcome> {
  const source = await sourceOf(deps, orgId, dataSourceId);
  if (source.type !== 'file') {
    throw new InvalidRequestError(
      `Data source ${dataSourceId} is a ${source.type} source: its documents come from its sync; change what it reads instead`,
      { data_source_type: source.type },
    );
  }
  const outcome: BulkDeleteOutcome = { deleted: [], failed: [] };
  for (const documentId of new Set(documentIds)) {
    try {
      await deleteFile(deps, orgId, dataSourceId, documentId);
      outcome.deleted.push(documentId);
    } catch (error) {
      // Gone already (an earlier attempt, another person): what was asked is true.
      if (error instanceof NotFoundError) outcome.deleted.push(documentId);
      else
        outcome.failed.push({
          document_id: documentId,
          error: error instanceof Error ? error.message : 'could not be deleted',
        });
    }
  }
  return outcome;
}

/**
 * Indexes one uploaded file again from its stored bytes (after it failed,
 * or to pick up a better parser): the record forgets its hash and says
 * `processing` at once, and the sync worker parses, chunks and embeds it.
 * A synced source's documents are read again by its next sync.
 */
export async function reindexSourceDocument(
  deps: Pick<SourceDocumentDependencies, 'dataSources' | 'files' | 'syncQueue' | 'clock'>,
  orgId: string,
  dataSourceId: string,
  documentId: string,
): Promise<SourceDocument> {
  const source = await sourceOf(deps, orgId, dataSourceId);
  if (source.type !== 'file') {
    throw new InvalidRequestError(
      `Data source ${dataSourceId} is a ${source.type} source: sync it to read its documents again`,
      { data_source_type: source.type },
    );
  }
  const file = await deps.files.get(orgId, dataSourceId, documentId);
  if (!file) throw new NotFoundError(`No file ${documentId} in data source ${dataSourceId}`);
  if (file.status === 'awaiting_upload') {
    throw new InvalidRequestError(`File ${documentId} has not been uploaded yet`, {
      status: file.status,
    });
  }
  const updated = await deps.files.update(orgId, dataSourceId, documentId, {
    status: 'processing',
    sha256: null,
    error: null,
    updated_at: deps.clock.now().toISOString(),
  });
  if (!updated) throw new NotFoundError(`No file ${documentId} in data source ${dataSourceId}`);
  await deps.syncQueue.send({
    org_id: orgId,
    data_source_id: dataSourceId,
    reindex: 'file',
    document_id: documentId,
  });
  return fileDocument(updated);
}
