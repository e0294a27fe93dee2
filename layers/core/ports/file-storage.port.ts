/**
 * A direct upload the caller sends itself: an HTML-form style POST of
 * `fields` then the file as the `file` field, to `url` (S3's presigned POST;
 * the local gateway accepts the same form).
 */
export interface PresignedUpload {
  readonly url: string;
  readonly fields: Readonly<Record<string, string>>;
}

/** The bytes of uploaded files: S3 in the cloud, files under the data directory on one machine. */
export interface FileStorage {
  /** An upload of at most `maxBytes` to exactly `key`, accepted until `expiresAt`. */
  presignUpload(input: {
    readonly key: string;
    readonly maxBytes: number;
    readonly expiresAt: Date;
  }): Promise<PresignedUpload>;
  /**
   * An address anyone holding it may GET the stored file at until
   * `expiresAt`, served with this content type and `Content-Disposition`
   * (S3's presigned GET; the local gateway's download route on one machine).
   */
  presignDownload(input: {
    readonly key: string;
    readonly contentType: string;
    readonly contentDisposition: string;
    readonly expiresAt: Date;
  }): Promise<string>;
  /** The stored bytes, or `null` when there is no such object. */
  read(key: string): Promise<Buffer | null>;
  delete(key: string): Promise<void>;
  /** Deletes every object under `prefix` (a data source's files when it is deleted). */
  deleteUnder(prefix: string): Promise<void>;
}
