import { parseCloudConfig } from '../../config';
import type { FileStorage } from '../../ports/file-storage.port';

/**
 * Uploaded files in the stack's bucket. The S3 client and the
 * presigner are loaded at the first file operation, not at init:
 * most data-source requests (list, get, update, sync) never touch a file,
 * and loading them was the larger part of that family's init time. The
 * configuration is still checked at init.
 */
export function cloudFileStorage(): FileStorage {
  const config = parseCloudConfig('fileBucket');
  let storage: Promise<FileStorage> | undefined;
  const s3 = (): Promise<FileStorage> => {
    storage ??= import('./s3-file-storage-connection').then((connection) =>
      connection.connectS3FileStorage(config),
    );
    return storage;
  };
  return {
    presignUpload: async (input) => (await s3()).presignUpload(input),
    presignDownload: async (input) => (await s3()).presignDownload(input),
    read: async (key) => (await s3()).read(key),
    delete: async (key) => (await s3()).delete(key),
    deleteUnder: async (prefix) => (await s3()).deleteUnder(prefix),
  };
}
