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

  /** Checks an upload's form fields as S3 checks a presigned POST's. */
  checkUpload(fields: Readonly<Record<string, string>>): UploadCheck {
    const { key, policy, signature } = fields;
    if (!key || !policy || !signature) return { ok: false, reason: 'malformed' };
    const expected = Buffer.from(this.sign(policy));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given))
      return { ok: false, reason: 'signature' };
    let decoded: { key?: unknown; max_bytes?: unknown; expires_at?: unknown };
    try {
      decoded = JSON.parse(Buffer.from(policy, 'base64url').toString('utf8'));
    } catch {
      return { ok: false, reason: 'malformed' };
    }
    if (
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
