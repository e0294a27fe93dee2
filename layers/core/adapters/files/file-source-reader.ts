import { createHash } from 'node:crypto';
import type { DataSource } from '../../domain/data-source';
import {
  fileObjectKey,
  uploadedFileContentPath,
  uploadedFileTitle,
} from '../../domain/uploaded-file';
import type { FileParser } from '../../ports/file-parser.port';
import type { FileStorage } from '../../ports/file-storage.port';
import type { SourceItem, SourceReader } from '../../ports/source-reader.port';
import type { UploadedFileRepository } from '../../ports/uploaded-file-repository.port';

/**
 * A `file` data source read for a sync: every file whose upload has
 * arrived, from storage, as the document its record names. Unchanged files
 * hash as they did when ingested, so the sync skips re-embedding them; what
 * a sync is for here is rebuilding the index (after an embedder change, or
 * to repair it). The data source's organization comes from the sync job.
 */
export class FileSourceReader implements SourceReader {
  constructor(
    private readonly orgId: string,
    private readonly files: UploadedFileRepository,
    private readonly storage: FileStorage,
    private readonly parser: FileParser,
  ) {}

  async *read(source: DataSource, signal: AbortSignal): AsyncIterable<SourceItem> {
    const files = await this.files.list(this.orgId, source.id);
    for (const file of files) {
      if (signal.aborted) return;
      // Not uploaded (yet): nothing to read, and nothing indexed to keep.
      if (file.status === 'awaiting_upload') continue;
      const key = file.filename;
      const bytes = await this.storage.read(fileObjectKey(this.orgId, source.id, file.id));
      if (!bytes) {
        yield { status: 'skipped', key, documentId: file.id, reason: 'gone', detail: 'deleted' };
        continue;
      }
      const parsed = await this.parser.parse(bytes, file.filename, file.content_type ?? undefined);
      yield parsed.ok
        ? {
            status: 'ok',
            key,
            documentId: file.id,
            // Titled and addressed as ingestion indexes an upload, so a re-sync changes neither.
            document: {
              ...parsed.document,
              title: uploadedFileTitle(file.filename, parsed.document.title),
              url: uploadedFileContentPath(source.id, file.id),
            },
            contentHash: createHash('sha256').update(bytes).digest('hex'),
          }
        : {
            status: 'skipped',
            key,
            documentId: file.id,
            reason: 'unreadable',
            detail: parsed.reason,
          };
    }
  }

  expectedTotal(): number | null {
    return null;
  }
}
