import { createHash } from 'node:crypto';
import type { DataSource } from '../../domain/data-source';
import {
  FILE_UPLOAD_LIMITS,
  parseFileObjectKey,
  uploadedFileContentPath,
  uploadedFileTitle,
} from '../../domain/uploaded-file';
import type { Clock } from '../../ports/clock.port';
import type { DataSourceRepository } from '../../ports/data-source-repository.port';
import { type DocumentChunker, DocumentRefusedError } from '../../ports/document-chunker.port';
import type { Embedder } from '../../ports/embedder.port';
import type { FileParser } from '../../ports/file-parser.port';
import type { FileStorage } from '../../ports/file-storage.port';
import type { RetrievalIndex } from '../../ports/retrieval-index.port';
import type { UploadedFileRepository } from '../../ports/uploaded-file-repository.port';
import { domainEvent } from '../events/domain-events';
import { indexDocument } from './index-document';

export interface IngestionDependencies {
  readonly dataSources: Pick<DataSourceRepository, 'get' | 'recordDirectIndexing'>;
  readonly files: UploadedFileRepository;
  readonly fileStorage: FileStorage;
  readonly fileParser: FileParser;
  readonly chunker: DocumentChunker;
  readonly retrieval: RetrievalIndex;
  readonly embedder: Embedder;
  readonly clock: Clock;
}

export type IngestionOutcome =
  /** Not a file's key (S3's test event, a stray object). */
  | 'ignored'
  /** Its data source or record is gone; the bytes were deleted. */
  | 'orphan'
  /** The object was deleted before it was read. */
  | 'gone'
  /** These exact bytes were handled already (a repeated event). */
  | 'unchanged'
  | 'indexed'
  | 'failed';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/**
 * An upload has arrived (S3's event, or the local gateway's): parse,
 * chunk, embed and index it as the document its record names. Safe to run
 * twice for one upload, and in any order with a re-upload: the document is
 * replaced as a whole by whatever bytes are stored now, and bytes already
 * indexed are recognised by their hash. The data source is written before
 * the file's record, so a crash between them is repaired by the retry
 * (which re-indexes, since the record still lacks the hash). A file that is
 * not of an accepted type, or cannot be read, is recorded `failed` with the
 * reason; failures of our own dependencies throw, so the message is retried.
 */
export async function ingestUploadedFile(
  deps: IngestionDependencies,
  objectKey: string,
): Promise<IngestionOutcome> {
  const ids = parseFileObjectKey(objectKey);
  if (!ids) return 'ignored';
  const { orgId, dataSourceId, documentId } = ids;
  const source = await deps.dataSources.get(orgId, dataSourceId);
  const file = source ? await deps.files.get(orgId, dataSourceId, documentId) : null;
  if (!source || !file) {
    await deps.fileStorage.delete(objectKey);
    return 'orphan';
  }
  const bytes = await deps.fileStorage.read(objectKey);
  if (!bytes) return 'gone';
  const hash = sha256(bytes);
  // Indexed or refused already: a repeated event, or the same bytes sent again.
  if ((file.status === 'indexed' || file.status === 'failed') && file.sha256 === hash)
    return 'unchanged';

  const started = deps.clock.now();
  await deps.files.update(orgId, dataSourceId, documentId, {
    status: 'processing',
    size_bytes: bytes.length,
    updated_at: started.toISOString(),
  });
  const parsed =
    bytes.length > FILE_UPLOAD_LIMITS.maxBytes
      ? ({ ok: false, reason: 'the file is larger than 50 MiB' } as const)
      : await deps.fileParser.parse(bytes, file.filename, file.content_type ?? undefined);

  if (!parsed.ok) {
    await recordRefusal(deps, { orgId, dataSourceId, documentId }, source, file.filename, {
      reason: parsed.reason,
      sha256: hash,
      started,
    });
    return 'failed';
  }

  let written: { chunks: number; tokens: number };
  try {
    // Cited by the file's name (its heading after it) and linked to a download of the file.
    const document = {
      ...parsed.document,
      title: uploadedFileTitle(file.filename, parsed.document.title),
      url: uploadedFileContentPath(dataSourceId, documentId),
    };
    written = await indexDocument(deps, orgId, dataSourceId, documentId, document, hash);
  } catch (error) {
    if (!(error instanceof DocumentRefusedError)) throw error;
    await recordRefusal(deps, { orgId, dataSourceId, documentId }, source, file.filename, {
      reason: error.message,
      sha256: hash,
      started,
    });
    return 'failed';
  }
  const finished = deps.clock.now();
  await deps.dataSources.recordDirectIndexing(
    orgId,
    dataSourceId,
    {
      chunksIndexed: await deps.retrieval.count({ orgId, dataSourceIds: [dataSourceId] }),
      status: 'active',
    },
    [sourceEvent(orgId, source, 'processed', started, finished, written.tokens, null)],
  );
  const recorded = await deps.files.update(orgId, dataSourceId, documentId, {
    status: 'indexed',
    sha256: hash,
    chunks_indexed: written.chunks,
    error: null,
    indexed_at: finished.toISOString(),
    updated_at: finished.toISOString(),
  });
  if (!recorded) {
    // The file was deleted while it was being indexed: what was written goes too.
    await deps.retrieval.deleteDocument(orgId, dataSourceId, documentId);
    return 'orphan';
  }
  return 'indexed';
}

/** The data source's event for one file, shaped as a sync's, with the file's stats. */
function sourceEvent(
  orgId: string,
  source: DataSource,
  outcome: 'processed' | 'failed',
  started: Date,
  finished: Date,
  tokensProcessed: number,
  error: string | null,
) {
  const dataSource = {
    id: source.id,
    name: source.name,
    type: source.type.toUpperCase(),
    status: outcome === 'processed' ? 'COMPLETED' : 'FAILED',
    stats: {
      documentsProcessed: outcome === 'processed' ? 1 : 0,
      tokensProcessed,
      duration: finished.getTime() - started.getTime(),
    },
  };
  return domainEvent(
    outcome === 'processed' ? 'datasource.processed' : 'datasource.failed',
    orgId,
    outcome === 'processed' ? { dataSource } : { dataSource, error },
    finished,
  );
}

type FileIds = {
  readonly orgId: string;
  readonly dataSourceId: string;
  readonly documentId: string;
};

/**
 * Records that a file is refused: whatever an earlier upload of it indexed
 * goes (the file is these bytes now), the data source's count follows, it
 * fails with a `datasource.failed` event when nothing of it is left indexed,
 * and the file's record says why.
 */
async function recordRefusal(
  deps: Pick<IngestionDependencies, 'dataSources' | 'files' | 'retrieval' | 'clock'>,
  ids: FileIds,
  source: DataSource,
  filename: string,
  refusal: { readonly reason: string; readonly sha256: string | null; readonly started: Date },
): Promise<void> {
  const { orgId, dataSourceId, documentId } = ids;
  await deps.retrieval.deleteDocument(orgId, dataSourceId, documentId);
  const chunks = await deps.retrieval.count({ orgId, dataSourceIds: [dataSourceId] });
  const error = `${filename}: ${refusal.reason}`;
  await deps.dataSources.recordDirectIndexing(
    orgId,
    dataSourceId,
    chunks === 0 ? { chunksIndexed: 0, status: 'failed' } : { chunksIndexed: chunks },
    chunks === 0
      ? [sourceEvent(orgId, source, 'failed', refusal.started, deps.clock.now(), 0, error)]
      : [],
  );
  await deps.files.update(orgId, dataSourceId, documentId, {
    status: 'failed',
    ...(refusal.sha256 === null ? {} : { sha256: refusal.sha256 }),
    chunks_indexed: 0,
    error: refusal.reason,
    updated_at: deps.clock.now().toISOString(),
  });
}

/**
 * Ends an upload whose message will not be delivered again (issue 14: its
 * processing failed or crashed the worker on every delivery), exactly as a
 * refused file ends, so nothing stays `processing`. A file that did get
 * indexed or refused meanwhile (the crash came after its record was
 * written) is left as it is.
 */
export async function failUploadedFile(
  deps: Pick<IngestionDependencies, 'dataSources' | 'files' | 'retrieval' | 'clock'>,
  objectKey: string,
  reason: string,
): Promise<void> {
  const ids = parseFileObjectKey(objectKey);
  if (!ids) return;
  const source = await deps.dataSources.get(ids.orgId, ids.dataSourceId);
  const file = source ? await deps.files.get(ids.orgId, ids.dataSourceId, ids.documentId) : null;
  if (!source || !file || file.status === 'indexed' || file.status === 'failed') return;
  await recordRefusal(deps, ids, source, file.filename, {
    reason,
    sha256: null,
    started: deps.clock.now(),
  });
}
