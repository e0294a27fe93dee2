import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalFileStorage } from '../../../../layers/core/adapters/local/local-file-storage';

describe('Class: LocalFileStorage', () => {
  let directory: string;
  let now = Date.parse('2026-11-21T10:00:00Z');
  const storage = (dir: string | null, signingKey = Buffer.alloc(32, 7)) =>
    new LocalFileStorage({
      directory: dir,
      signingKey,
      uploadUrl: () => 'http://127.0.0.1:3000/_local/uploads',
      downloadUrl: () => 'http://127.0.0.1:3000/_local/downloads',
      now: () => now,
    });

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'blobs-'));
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  describe('presigned uploads', () => {
    const key = 'files/org_a/ds_b/doc_c';
    const presign = (files: LocalFileStorage) =>
      files.presignUpload({ key, maxBytes: 100, expiresAt: new Date(now + 60_000) });

    it('signs a policy naming the key, the size limit and the expiry', async () => {
      const files = storage(directory);
      const upload = await presign(files);

      expect(upload.url).toBe('http://127.0.0.1:3000/_local/uploads');
      expect(files.checkUpload(upload.fields)).toEqual({
        ok: true,
        policy: { key, maxBytes: 100, expiresAt: now + 60_000 },
      });
    });

    it('refuses a policy signed with another key, or edited, or expired', async () => {
      const upload = await presign(storage(directory, Buffer.alloc(32, 9)));
      expect(storage(directory).checkUpload(upload.fields)).toEqual({
        ok: false,
        reason: 'signature',
      });

      const files = storage(directory);
      const signed = await presign(files);
      const stretched = Buffer.from(
        JSON.stringify({ key, max_bytes: 10 ** 9, expires_at: now + 60_000 }),
      ).toString('base64url');
      expect(files.checkUpload({ ...signed.fields, policy: stretched })).toEqual({
        ok: false,
        reason: 'signature',
      });

      now += 60_000;
      expect(files.checkUpload(signed.fields)).toEqual({ ok: false, reason: 'expired' });
    });

    it('refuses missing fields and a key other than the policy’s', async () => {
      const files = storage(directory);
      const upload = await presign(files);
      expect(files.checkUpload({})).toEqual({ ok: false, reason: 'malformed' });
      expect(files.checkUpload({ ...upload.fields, key: 'files/org_x/ds_b/doc_c' })).toEqual({
        ok: false,
        reason: 'malformed',
      });
    });
  });

  describe('presigned downloads', () => {
    const key = 'files/org_a/ds_b/doc_c';
    const served = {
      contentType: 'text/markdown; charset=utf-8',
      contentDisposition: 'inline; filename="express.md"',
    };
    const presign = (files: LocalFileStorage) =>
      files.presignDownload({ key, ...served, expiresAt: new Date(now + 300_000) });
    const parametersOf = (url: string) => new URL(url).searchParams;

    it('signs a policy naming the key, how to serve it and the expiry', async () => {
      const files = storage(directory);
      const url = await presign(files);

      expect(url.startsWith('http://127.0.0.1:3000/_local/downloads?policy=')).toBe(true);
      expect(files.checkDownload(parametersOf(url))).toEqual({
        ok: true,
        policy: { key, ...served, expiresAt: now + 300_000 },
      });
    });

    it('refuses a download signed with another key, edited, expired or incomplete', async () => {
      const foreign = await presign(storage(directory, Buffer.alloc(32, 9)));
      const files = storage(directory);
      expect(files.checkDownload(parametersOf(foreign))).toEqual({
        ok: false,
        reason: 'signature',
      });

      const signed = parametersOf(await presign(files));
      const edited = new URLSearchParams(signed);
      edited.set(
        'policy',
        Buffer.from(
          JSON.stringify({
            kind: 'download',
            key: 'files/org_x/ds_b/doc_c',
            content_type: served.contentType,
            content_disposition: served.contentDisposition,
            expires_at: now + 300_000,
          }),
        ).toString('base64url'),
      );
      expect(files.checkDownload(edited)).toEqual({ ok: false, reason: 'signature' });
      expect(files.checkDownload(new URLSearchParams())).toEqual({
        ok: false,
        reason: 'malformed',
      });

      now += 300_000;
      expect(files.checkDownload(signed)).toEqual({ ok: false, reason: 'expired' });
    });

    it('never takes an upload signature for a download, nor a download signature for an upload', async () => {
      const files = storage(directory);
      const upload = await files.presignUpload({
        key,
        maxBytes: 100,
        expiresAt: new Date(now + 60_000),
      });
      const asDownload = new URLSearchParams({
        policy: upload.fields.policy ?? '',
        signature: upload.fields.signature ?? '',
      });
      expect(files.checkDownload(asDownload)).toEqual({ ok: false, reason: 'malformed' });

      const download = parametersOf(await presign(files));
      expect(
        files.checkUpload({
          key,
          policy: download.get('policy') ?? '',
          signature: download.get('signature') ?? '',
        }),
      ).toEqual({ ok: false, reason: 'malformed' });
    });
  });

  describe.each([
    ['on disk', () => directory],
    ['in memory', () => null],
  ])('bytes %s', (_, dirOf) => {
    it('writes, reads, deletes one file, and deletes a prefix', async () => {
      const files = storage(dirOf());
      await files.write('files/org_a/ds_b/doc_1', Buffer.from('one'));
      await files.write('files/org_a/ds_b/doc_2', Buffer.from('two'));
      await files.write('files/org_a/ds_c/doc_3', Buffer.from('three'));

      expect(await files.read('files/org_a/ds_b/doc_1')).toEqual(Buffer.from('one'));
      await files.delete('files/org_a/ds_b/doc_1');
      expect(await files.read('files/org_a/ds_b/doc_1')).toBeNull();
      await files.delete('files/org_a/ds_b/doc_1');

      await files.deleteUnder('files/org_a/ds_b/');
      expect(await files.read('files/org_a/ds_b/doc_2')).toBeNull();
      expect(await files.read('files/org_a/ds_c/doc_3')).toEqual(Buffer.from('three'));
    });
  });

  it('leaves no partial file behind a write, and never writes outside its directory', async () => {
    const files = storage(directory);
    await files.write('files/org_a/ds_b/doc_1', Buffer.from('whole'));
    expect(readdirSync(join(directory, 'files/org_a/ds_b'))).toEqual(['doc_1']);

    await expect(files.write('../escape', Buffer.from('x'))).rejects.toThrow(/escapes/);
    await expect(files.read('files/../../etc/passwd')).rejects.toThrow(/escapes/);
  });
});
