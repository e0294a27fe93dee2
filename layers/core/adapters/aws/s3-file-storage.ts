import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  type S3Client,
} from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { FileStorage, PresignedUpload } from '../../ports/file-storage.port';

/** DeleteObjects takes at most 1,000 keys a call. */
const DELETE_BATCH = 1000;

/**
 * Uploaded files in the stack's bucket (lib/constructs/file-store.ts: SSE-KMS
 * by bucket default, TLS only). Uploads are presigned POSTs: unlike a
 * presigned PUT, their policy can bound the size (`content-length-range`),
 * so S3 itself refuses a file over the input limits' 50 MiB before storing a byte, and
 * pins the key, so a caller cannot write anywhere else. The object-created
 * event then starts ingestion (the stack's bucket notification).
 */
export class S3FileStorage implements FileStorage {
  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    private readonly now: () => number = Date.now,
  ) {}

  async presignUpload(input: {
    key: string;
    maxBytes: number;
    expiresAt: Date;
  }): Promise<PresignedUpload> {
    const { url, fields } = await createPresignedPost(this.client, {
      Bucket: this.bucket,
      Key: input.key,
      Conditions: [['content-length-range', 1, input.maxBytes]],
      Expires: Math.max(1, Math.ceil((input.expiresAt.getTime() - this.now()) / 1000)),
    });
    return { url, fields };
  }

  /**
   * A presigned GET: S3 serves the object with the content type and
   * disposition the signature pins (`response-content-*`), so the browser
   * shows the file under its name.
   */
  async presignDownload(input: {
    key: string;
    contentType: string;
    contentDisposition: string;
    expiresAt: Date;
  }): Promise<string> {
    const now = this.now();
    return getSignedUrl(
      this.client,
      new GetObjectCommand({
        Bucket: this.bucket,
        Key: input.key,
        ResponseContentType: input.contentType,
        ResponseContentDisposition: input.contentDisposition,
      }),
      {
        expiresIn: Math.max(1, Math.ceil((input.expiresAt.getTime() - now) / 1000)),
        signingDate: new Date(now),
      },
    );
  }

  async read(key: string): Promise<Buffer | null> {
    try {
      const { Body } = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: key }),
      );
      return Body ? Buffer.from(await Body.transformToByteArray()) : null;
    } catch (error) {
      if (error instanceof NoSuchKey) return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  async deleteUnder(prefix: string): Promise<void> {
    let token: string | undefined;
    do {
      const listed = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          Prefix: prefix,
          MaxKeys: DELETE_BATCH,
          ContinuationToken: token,
        }),
      );
      const keys = (listed.Contents ?? []).flatMap((object) =>
        object.Key ? [{ Key: object.Key }] : [],
      );
      if (keys.length > 0) {
        const result = await this.client.send(
          new DeleteObjectsCommand({
            Bucket: this.bucket,
            Delete: { Objects: keys, Quiet: true },
          }),
        );
        const failed = result.Errors ?? [];
        if (failed.length > 0) {
          throw new Error(
            `Could not delete ${failed.length} file(s) under ${prefix}: ${failed[0]?.Code} ${failed[0]?.Message}`,
          );
        }
      }
      token = listed.IsTruncated ? listed.NextContinuationToken : undefined;
    } while (token);
  }
}
