import { createHash } from 'node:crypto';
import { detectFileType } from '../../domain/file-types';
import { FILE_UPLOAD_LIMITS } from '../../domain/uploaded-file';
import type { FileParser } from '../../ports/file-parser.port';
import type { SourceItem } from '../../ports/source-reader.port';
import type { ProviderFetch } from './oauth-http';
import type { ProviderApi } from './provider-api';

/** A provider file is read up to the size an upload may have (50 MiB); larger ones are skipped. */
export const PROVIDER_FILE_LIMITS = { maxBytes: FILE_UPLOAD_LIMITS.maxBytes } as const;

/** A file at a provider, as its connector lists it: how it is named, linked and downloaded. */
export interface ProviderFile {
  /** The document's key in the index (the provider's id, prefixed): unchanged by renames and moves. */
  readonly key: string;
  /** The name people see at the provider: the document's title, and what the parser dispatches on. */
  readonly name: string;
  /** Opens the item at the provider (citations link to it). */
  readonly url: string;
  readonly contentType?: string | null;
  /** Bytes, as the provider's listing says (checked before downloading); `null` when it does not say. */
  readonly size: number | null;
  /** Where the API serves the bytes (the bearer token is sent; a redirect is followed without it). */
  readonly downloadUrl: string;
}

type FileItem = Extract<SourceItem, { status: 'ok' | 'skipped' }>;

/**
 * Whether the service can read a file of this name and type (the upload rules' types):
 * connectors leave other files (images, spreadsheets, videos) out of the
 * index without downloading them.
 */
export const isReadableFile = (name: string, contentType?: string | null) =>
  detectFileType(name, contentType ?? undefined) !== undefined;

/**
 * Issue 12: a provider's file to a `SourceItem` — downloaded through the
 * provider API (renewals, rate limits, the file cap), parsed by the file
 * parsers (the upload rules' types under the limits; on one machine in the parsing
 * child process), titled and linked as at the provider. The content
 * hash covers bytes, name and link, so a rename re-indexes the document
 * under the same key while unchanged bytes are never embedded twice.
 * A file deleted meanwhile is `gone`; one over the cap, refused by the
 * provider or by the parsers is skipped with the reason.
 */
export async function readProviderFile(
  api: ProviderApi,
  download: ProviderFetch,
  parser: FileParser,
  file: ProviderFile,
): Promise<FileItem> {
  if (file.size !== null && file.size > PROVIDER_FILE_LIMITS.maxBytes) {
    return {
      status: 'skipped',
      key: file.key,
      reason: 'too-large',
      detail: `${file.name} has ${file.size} bytes, more than the ${PROVIDER_FILE_LIMITS.maxBytes} a connector reads per file`,
    };
  }
  const answer = await api.getBytes(file.downloadUrl, download);
  if (answer.status === 404) {
    return { status: 'skipped', key: file.key, reason: 'gone', detail: 'deleted' };
  }
  if (answer.status === 403) {
    return {
      status: 'skipped',
      key: file.key,
      reason: 'forbidden',
      detail: `the provider refused to serve ${file.name}: ${answer.reason}`,
    };
  }
  return fileItemOf(parser, { ...file, bytes: answer.bytes }, answer.contentType);
}

/** A provider file's bytes to a `SourceItem` through the file parsers (see {@link readProviderFile}). */
export async function fileItemOf(
  parser: FileParser,
  file: Pick<ProviderFile, 'key' | 'name' | 'url' | 'contentType'> & {
    readonly bytes: Buffer;
    /** The title people see when it differs from the name parsed by (a Google Doc exported as `<title>.md`). */
    readonly title?: string;
  },
  servedType: string | null = null,
): Promise<FileItem> {
  const contentType = file.contentType ?? servedType ?? undefined;
  const title = file.title ?? file.name;
  const parsed = await parser.parse(file.bytes, file.name, contentType);
  if (!parsed.ok) {
    return { status: 'skipped', key: file.key, reason: 'unreadable', detail: parsed.reason };
  }
  return {
    status: 'ok',
    key: file.key,
    document: { ...parsed.document, title, url: file.url },
    contentHash: createHash('sha256')
      .update(`${title}\n${file.url}\n`)
      .update(file.bytes)
      .digest('hex'),
  };
}
