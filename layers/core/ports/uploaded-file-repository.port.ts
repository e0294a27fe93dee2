import type { UploadedFile } from '../domain/uploaded-file';

export type UploadedFileChanges = Partial<
  Omit<UploadedFile, 'id' | 'data_source_id' | 'filename' | 'content_type' | 'created_at'>
>;

/** The records of uploaded files; every call is scoped by organization and data source. */
export interface UploadedFileRepository {
  /** `expiresAtSeconds`: the record vanishes then unless an upload arrives (TTL). */
  create(orgId: string, file: UploadedFile, expiresAtSeconds: number): Promise<void>;
  /**
   * Writes every record or none: when a write fails, the records
   * already written are removed before the error is thrown.
   */
  createAll(orgId: string, files: readonly UploadedFile[], expiresAtSeconds: number): Promise<void>;
  get(orgId: string, dataSourceId: string, id: string): Promise<UploadedFile | null>;
  /** Every file of the data source, newest first. */
  list(orgId: string, dataSourceId: string): Promise<UploadedFile[]>;
  /** Sets `changes`, after which the record no longer expires; `null` when it does not exist. */
  update(
    orgId: string,
    dataSourceId: string,
    id: string,
    changes: UploadedFileChanges,
  ): Promise<UploadedFile | null>;
  delete(orgId: string, dataSourceId: string, id: string): Promise<boolean>;
}
