import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import type { FileStorage, PresignedUpload } from '../../ports/file-storage.port';

/** What a local presigned upload allows: this key, this size, until then. */
export interface LocalUploadPolicy {
  readonly key: string;
  readonly maxBytes: number;
  readonly expiresAt: number;
}

export type UploadCheck =
  | { readonly ok: true; readonly policy: LocalUploadPolicy }
  | { readonly ok: false; readonly reason: 'malformed' | 'signature' | 'expired' };

/** What a local presigned download allows: this key, served so, until then. */
export interface LocalDownloadPolicy {
  readonly key: string;
  readonly contentType: string;
  readonly contentDisposition: string;
  readonly expiresAt: number;
}

export type DownloadCheck =
  | { readonly ok: true; readonly policy: LocalDownloadPolicy }
  | { readonly ok: false; readonly reason: 'malformed' | 'signature' | 'expired' };

/**
 * S3's part on one machine (ARCHITECTURE.md): uploaded files under
 * `<data dir>/blobs` (or in memory), and presigned uploads the local gateway
 * accepts. A presigned upload is an HTML-form POST like S3's: the `policy`
 * field names the key, the size limit and the expiry, and `signature` is its
 * HMAC under a key derived from the local master key, so only the service
 * can issue one and nobody can stretch it.
 */
export class LocalFileStorage implements FileStorage {
  private readonly memory = new Map<string, Buffer>();

  constructor(
    private readonly options: {
      /** `null`: keep files in memory (SVC_IN_MEMORY, tests). */
      readonly directory: string | null;
      readonly signingKey: Buffer;
      /** The gateway's upload address, known once the gateway listens. */
      readonly uploadUrl: () => string;
      /** The gateway's download address, likewise. */
      readonly downloadUrl: () => string;
      readonly now: () => number;
    },
  ) {}

  async presignUpload(input: {
    key: string;
    maxBytes: number;
    expiresAt: Date;
  }): Promise<PresignedUpload> {
    const policy = Buffer.from(
      JSON.stringify({
        key: input.key,
        max_bytes: input.maxBytes,
        expires_at: input.expiresAt.getTime(),
      }),
    ).toString('base64url');
    return {
      url: this.options.uploadUrl(),
      fields: { key: input.key, policy, signature: this.sign(policy) },
    };
  }

  /**
   * A download the gateway serves as S3 serves a presigned GET: the `policy`
   * parameter names the key, how to serve it and the expiry, `signature` is
   * its HMAC. A policy says which kind it is, so an upload's signature never
   * passes for a download's.
   */
  async presignDownload(input: {
    key: string;
    contentType: string;
    contentDisposition: string;
    expiresAt: Date;
  }): Promise<string> {
    const policy = Buffer.from(
      JSON.stringify({
        kind: 'download',
        key: input.key,
        content_type: input.contentType,
        content_disposition: input.contentDisposition,
        expires_at: input.expiresAt.getTime(),
      }),
    ).toString('base64url');
    const url = new URL(this.options.downloadUrl());
    url.searchParams.set('policy', policy);
    url.searchParams.set('signature', this.sign(policy));
    return url.toString();
  }

  /** Checks a download's query parameters as S3 checks a presigned GET's. */
  checkDownload(parameters: URLSearchParams): DownloadCheck {
    const policy = parameters.get('policy');
    const signature = parameters.get('signature');
    if (!policy || !signature) return { ok: false, reason: 'malformed' };
    const expected = Buffer.from(this.sign(policy));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given))
      return { ok: false, reason: 'signature' };
    let decoded: Record<string, unknown> | null;
    try {
      decoded = JSON.parse(Buffer.from(policy, 'base64url').toString('utf8'));
    } catch {
      return { ok: false, reason: 'malformed' };
    }
    if (typeof decoded !== 'object' || decoded === null) return { ok: false, reason: 'malformed' };
    const { kind, key, content_type, content_disposition, expires_at } = decoded;
    if (
      kind !== 'download' ||
      typeof key !== 'string' ||
      typeof content_type !== 'string' ||
      typeof content_disposition !== 'string' ||
      typeof expires_at !== 'number'
    )
      return { ok: false, reason: 'malformed' };
    if (this.options.now() >= expires_at) return { ok: false, reason: 'expired' };
    return {
      ok: true,
      policy: {
        key,
        contentType: content_type,
        contentDisposition: content_disposition,
        expiresAt: expires_at,
      },
    };
  }

  /** Checks an upload's form fields as S3 checks a presigned POST's. */
  checkUpload(fields: Readonly<Record<string, string>>): UploadCheck {
    const { key, policy, signature } = fields;
    if (!key || !policy || !signature) return { ok: false, reason: 'malformed' };
    const expected = Buffer.from(this.sign(policy));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given))
      return { ok: false, reason: 'signature' };
    let decoded: { kind?: unknown; key?: unknown; max_bytes?: unknown; expires_at?: unknown };
    try {
      decoded = JSON.parse(Buffer.from(policy, 'base64url').toString('utf8'));
    } catch {
      return { ok: false, reason: 'malformed' };
    }
    if (
      decoded?.kind !== undefined ||
      decoded.key !== key ||
      typeof decoded.max_bytes !== 'number' ||
      typeof decoded.expires_at !== 'number'
    )
      return { ok: false, reason: 'malformed' };
    if (this.options.now() >= decoded.expires_at) return { ok: false, reason: 'expired' };
    return {
      ok: true,
      policy: { key, maxBytes: decoded.max_bytes, expiresAt: decoded.expires_at },
    };
  }

  /** Stores an upload whole: readers never see half a file (temp file, then rename). */
  async write(key: string, bytes: Buffer): Promise<void> {
    if (this.options.directory === null) {
      this.memory.set(key, Buffer.from(bytes));
      return;
    }
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true });
    const temporary = `${path}.${process.pid}.${Date.now()}.partial`;
    await writeFile(temporary, bytes);
    await rename(temporary, path);
  }

  async read(key: string): Promise<Buffer | null> {
    if (this.options.directory === null) return this.memory.get(key) ?? null;
    try {
      return await readFile(this.pathOf(key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    if (this.options.directory === null) {
      this.memory.delete(key);
      return;
    }
    await rm(this.pathOf(key), { force: true });
  }

  async deleteUnder(prefix: string): Promise<void> {
    if (this.options.directory === null) {
      for (const key of [...this.memory.keys()])
        if (key.startsWith(prefix)) this.memory.delete(key);
      return;
    }
    // Prefixes are whole folders here (`files/<org>/<ds>/`).
    await rm(this.pathOf(prefix), { recursive: true, force: true });
  }

  private sign(policy: string): string {
    return createHmac('sha256', this.options.signingKey).update(policy).digest('base64url');
  }

  /** Keys are ours (ids only), but a path is still never allowed out of the directory. */
  private pathOf(key: string): string {
    const root = resolve(this.options.directory ?? '.');
    const path = resolve(join(root, key));
    if (!path.startsWith(root + sep)) throw new Error(`File key escapes the blob store: ${key}`);
    return path;
  }
}
