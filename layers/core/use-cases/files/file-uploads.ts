import { InvalidRequestError, NotFoundError } from '../../domain/errors';
import {
  detectFileType,
  FILE_TYPES,
  servedContentType,
  UnsupportedFileTypeError,
} from '../../domain/file-types';
import { newId } from '../../domain/ids';
import {
  FILE_UPLOAD_LIMITS,
  fileObjectKey,
  inlineContentDisposition,
  type UploadedFile,
} from '../../domain/uploaded-file';
import type { Clock } from '../../ports/clock.port';
import type { DataSourceRepository } from '../../ports/data-source-repository.port';
import type { FileStorage } from '../../ports/file-storage.port';
import type { SyncJobQueue } from '../../ports/sync-job-queue.port';
import type { UploadedFileRepository } from '../../ports/uploaded-file-repository.port';

export interface FileUploadDependencies {
  readonly dataSources: Pick<DataSourceRepository, 'get'>;
  readonly files: UploadedFileRepository;
  readonly fileStorage: FileStorage;
  /** A deleted file's chunks are purged by the sync worker. */
  readonly syncQueue: SyncJobQueue;
  readonly clock: Clock;
}

export interface CreateFileUploadInput {
  readonly filename: string;
  readonly content_type?: string | undefined;
  /** Declared size: an upload that cannot fit is refused before it is sent. */
  readonly size_bytes?: number | undefined;
}

/** The upload rules' answer: where and how to send the file, and the document it becomes. */
export interface FileUploadTicket {
  readonly document_id: string;
  readonly upload_url: string;
  readonly upload_method: 'POST';
  readonly upload_fields: Readonly<Record<string, string>>;
  readonly expires_at: string;
  readonly max_bytes: number;
  readonly file: UploadedFile;
  /** The source had a file of this name: its document (this `document_id`) is replaced when the upload arrives. */
  readonly replaces_existing: boolean;
}

/** How long a record of an upload that never came is kept after its URL expired (TTL). */
const UNUSED_RECORD_GRACE_SECONDS = 7 * 24 * 3600;

async function fileSource(
  deps: Pick<FileUploadDependencies, 'dataSources'>,
  orgId: string,
  dataSourceId: string,
) {
  const source = await deps.dataSources.get(orgId, dataSourceId);
  if (!source) throw new NotFoundError(`No data source ${dataSourceId}`);
  return source;
}

/** A file data source of the organization, or the 404/400 a file upload to anything else gets. */
async function uploadTarget(
  deps: Pick<FileUploadDependencies, 'dataSources'>,
  orgId: string,
  dataSourceId: string,
): Promise<void> {
  const source = await fileSource(deps, orgId, dataSourceId);
  if (source.type !== 'file') {
    throw new InvalidRequestError(
      `Data source ${dataSourceId} is a ${source.type} source; files can only be uploaded to a file data source`,
      { data_source_type: source.type },
    );
  }
}

/** The record of a file to come, `awaiting_upload` until its bytes arrive. */
function awaitedFile(dataSourceId: string, input: CreateFileUploadInput, now: Date): UploadedFile {
  const expiresAt = new Date(now.getTime() + FILE_UPLOAD_LIMITS.urlTtlSeconds * 1000);
  return {
    id: newId('document', now.getTime()),
    data_source_id: dataSourceId,
    filename: input.filename,
    content_type: input.content_type ?? null,
    status: 'awaiting_upload',
    size_bytes: null,
    sha256: null,
    chunks_indexed: 0,
    error: null,
    upload_expires_at: expiresAt.toISOString(),
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    indexed_at: null,
  };
}

/** When a record whose upload never came disappears (TTL, seconds). */
function recordExpiry(file: UploadedFile): number {
  return Math.floor(Date.parse(file.upload_expires_at) / 1000) + UNUSED_RECORD_GRACE_SECONDS;
}

/** Presigns the upload of a recorded file (S3: a POST policy for exactly its key, size and expiry). */
async function ticketFor(
  deps: Pick<FileUploadDependencies, 'fileStorage'>,
  orgId: string,
  file: UploadedFile,
  replacesExisting: boolean,
): Promise<FileUploadTicket> {
  const upload = await deps.fileStorage.presignUpload({
    key: fileObjectKey(orgId, file.data_source_id, file.id),
    maxBytes: FILE_UPLOAD_LIMITS.maxBytes,
    expiresAt: new Date(file.upload_expires_at),
  });
  return {
    document_id: file.id,
    upload_url: upload.url,
    upload_method: 'POST',
    upload_fields: upload.fields,
    expires_at: file.upload_expires_at,
    max_bytes: FILE_UPLOAD_LIMITS.maxBytes,
    file,
    replaces_existing: replacesExisting,
  };
}

/**
 * A file's name is what people know it by, so a source holds one file per
 * name: an upload under a name the source already has replaces that file.
 * Its record is kept (same document id, so the same object key: the new
 * bytes overwrite the old, and ingestion replaces its chunks, or does
 * nothing when the bytes are the same), with a new upload deadline; it
 * keeps its state until the bytes arrive. A record whose bytes never came
 * is dropped instead, and the upload gets a fresh one that expires as usual.
 */
async function replacing(
  deps: Pick<FileUploadDependencies, 'files'>,
  orgId: string,
  existing: UploadedFile,
  fresh: UploadedFile,
): Promise<UploadedFile | null> {
  if (existing.status === 'awaiting_upload') {
    await deps.files.delete(orgId, existing.data_source_id, existing.id);
    return null;
  }
  return deps.files.update(orgId, existing.data_source_id, existing.id, {
    upload_expires_at: fresh.upload_expires_at,
    updated_at: fresh.updated_at,
  });
}

/** The source's files by name (the newest when, from before names were unique, two share one). */
async function filesByName(
  deps: Pick<FileUploadDependencies, 'files'>,
  orgId: string,
  dataSourceId: string,
): Promise<Map<string, UploadedFile>> {
  const byName = new Map<string, UploadedFile>();
  // Listed newest first: the first of a name is kept.
  for (const file of await deps.files.list(orgId, dataSourceId)) {
    if (!byName.has(file.filename)) byName.set(file.filename, file);
  }
  return byName;
}

/**
 * Records the file to come and presigns its upload. The type is
 * checked here, by name and declared content type, so a wrong file is
 * refused before it is sent; ingestion checks the bytes again. The record
 * is written before the URL exists, so every upload that can arrive has
 * one; a record whose upload never comes expires.
 */
export async function createFileUpload(
  deps: FileUploadDependencies,
  orgId: string,
  dataSourceId: string,
  input: CreateFileUploadInput,
): Promise<FileUploadTicket> {
  await uploadTarget(deps, orgId, dataSourceId);
  if (detectFileType(input.filename, input.content_type) === undefined) {
    throw new UnsupportedFileTypeError(input.filename, input.content_type);
  }
  const fresh = awaitedFile(dataSourceId, input, deps.clock.now());
  const existing = (await filesByName(deps, orgId, dataSourceId)).get(input.filename);
  const kept = existing ? await replacing(deps, orgId, existing, fresh) : null;
  if (kept) return ticketFor(deps, orgId, kept, true);
  await deps.files.create(orgId, fresh, recordExpiry(fresh));
  return ticketFor(deps, orgId, fresh, existing !== undefined);
}

/**
 * Up to 100 files presigned by one request, a ticket each, in the
 * order listed. Every entry is checked before anything is written (a name
 * listed twice is refused too), and a refusal names each bad entry by its
 * index (`files.3.filename`); then a name the source has already keeps its
 * record (replaced, as one upload), the new records are written all or
 * none (the repository's `createAll`), and only then are the uploads
 * presigned, so no ticket exists without its record.
 */
export async function createFileUploads(
  deps: FileUploadDependencies,
  orgId: string,
  dataSourceId: string,
  inputs: readonly CreateFileUploadInput[],
): Promise<FileUploadTicket[]> {
  await uploadTarget(deps, orgId, dataSourceId);
  const firstIndexOf = new Map<string, number>();
  const refused = inputs.flatMap((input, index) => {
    const earlier = firstIndexOf.get(input.filename);
    if (earlier === undefined) firstIndexOf.set(input.filename, index);
    if (detectFileType(input.filename, input.content_type) === undefined)
      return [{ index, error: new UnsupportedFileTypeError(input.filename, input.content_type) }];
    // One name is one file: the same name twice would be two uploads racing for one document.
    if (earlier !== undefined)
      return [
        { index, error: new Error(`${input.filename} is already listed as files.${earlier}`) },
      ];
    return [];
  });
  if (refused.length > 0) {
    throw new InvalidRequestError(
      `${refused.length} of ${inputs.length} files cannot be uploaded, so none were: ${refused
        .map(({ index, error }) => `files.${index}: ${error.message}`)
        .join('; ')}`,
      {
        fields: refused.map(({ index, error }) => ({
          path: `files.${index}.filename`,
          message: error.message,
        })),
        accepted_types: [...FILE_TYPES],
      },
    );
  }
  const now = deps.clock.now();
  const byName = await filesByName(deps, orgId, dataSourceId);
  const planned = await Promise.all(
    inputs.map(async (input) => {
      const fresh = awaitedFile(dataSourceId, input, now);
      const existing = byName.get(input.filename);
      const kept = existing ? await replacing(deps, orgId, existing, fresh) : null;
      return { file: kept ?? fresh, isNew: kept === null, replaces: existing !== undefined };
    }),
  );
  const created = planned.filter((entry) => entry.isNew).map((entry) => entry.file);
  const [first] = created;
  // Presigned at one moment, the files expire together.
  if (first) await deps.files.createAll(orgId, created, recordExpiry(first));
  return Promise.all(planned.map((entry) => ticketFor(deps, orgId, entry.file, entry.replaces)));
}

export async function listFiles(
  deps: Pick<FileUploadDependencies, 'dataSources' | 'files'>,
  orgId: string,
  dataSourceId: string,
): Promise<UploadedFile[]> {
  await fileSource(deps, orgId, dataSourceId);
  return deps.files.list(orgId, dataSourceId);
}

export async function getFile(
  deps: Pick<FileUploadDependencies, 'dataSources' | 'files'>,
  orgId: string,
  dataSourceId: string,
  documentId: string,
): Promise<UploadedFile> {
  await fileSource(deps, orgId, dataSourceId);
  const file = await deps.files.get(orgId, dataSourceId, documentId);
  if (!file) throw new NotFoundError(`No file ${documentId} in data source ${dataSourceId}`);
  return file;
}

/**
 * Where a cited file opens: a download of its stored bytes good for a few
 * minutes (FILE_UPLOAD_LIMITS.downloadTtlSeconds), shown in place under its
 * name. A file of another organization, or one whose bytes never arrived,
 * is not found.
 */
export async function fileDownloadUrl(
  deps: Pick<FileUploadDependencies, 'dataSources' | 'files' | 'fileStorage' | 'clock'>,
  orgId: string,
  dataSourceId: string,
  documentId: string,
): Promise<string> {
  const file = await getFile(deps, orgId, dataSourceId, documentId);
  if (file.status === 'awaiting_upload')
    throw new NotFoundError(`File ${documentId} has not been uploaded`);
  return deps.fileStorage.presignDownload({
    key: fileObjectKey(orgId, dataSourceId, documentId),
    contentType: servedContentType(file.filename, file.content_type),
    contentDisposition: inlineContentDisposition(file.filename),
    expiresAt: new Date(deps.clock.now().getTime() + FILE_UPLOAD_LIMITS.downloadTtlSeconds * 1000),
  });
}

/**
 * Removes a file: the purge of its chunks is queued first (the sync
 * worker deletes them, usually within seconds, and recounts the source's
 * chunks), then its bytes go, then its record. Each step is idempotent, so a
 * failure part way is finished by calling again. A second purge is queued at
 * the end: an ingestion of the same file that was running meanwhile either
 * recorded its result before the record went (so its chunks were written
 * before, and go with that purge) or finds the record gone and deletes them
 * itself.
 */
export async function deleteFile(
  deps: FileUploadDependencies,
  orgId: string,
  dataSourceId: string,
  documentId: string,
): Promise<void> {
  await getFile(deps, orgId, dataSourceId, documentId);
  const purge = {
    org_id: orgId,
    data_source_id: dataSourceId,
    purge: 'document',
    document_id: documentId,
  } as const;
  await deps.syncQueue.send(purge);
  await deps.fileStorage.delete(fileObjectKey(orgId, dataSourceId, documentId));
  await deps.files.delete(orgId, dataSourceId, documentId);
  await deps.syncQueue.send(purge);
}
