import { S3Client } from '@aws-sdk/client-s3';
import { S3FileStorage } from '../../../../layers/core/adapters/aws/s3-file-storage';

/**
 * The presigned POST is computed locally by the AWS SDK (no request is
 * made), so it is checked here for real: the policy S3 will enforce pins the
 * key and bounds the size (D17); so is the presigned GET. Reads and deletes need S3 itself and are
 * not exercised here (docs/deployment/resources.md).
 */
describe('Class: S3FileStorage', () => {
  const client = new S3Client({
    region: 'eu-west-1',
    credentials: { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'example-secret' },
  });
  afterAll(() => client.destroy());

  it('presigns a POST whose policy pins the key, the bucket, the size range and the expiry', async () => {
    const now = Date.now();
    const storage = new S3FileStorage(client, 'aqs-files', () => now);

    const upload = await storage.presignUpload({
      key: 'files/org_a/ds_b/doc_c',
      maxBytes: 50 * 1024 * 1024,
      expiresAt: new Date(now + 15 * 60_000),
    });

    expect(upload.url).toMatch(/^https:\/\/aqs-files\.s3\.eu-west-1\.amazonaws\.com\/?$/);
    expect(upload.fields).toMatchObject({
      key: 'files/org_a/ds_b/doc_c',
      bucket: 'aqs-files',
      'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
      'X-Amz-Signature': expect.stringMatching(/^[0-9a-f]{64}$/),
      Policy: expect.any(String),
    });
    const policy = JSON.parse(Buffer.from(upload.fields.Policy ?? '', 'base64').toString('utf8'));
    expect(policy.conditions).toEqual(
      expect.arrayContaining([
        ['content-length-range', 1, 50 * 1024 * 1024],
        { key: 'files/org_a/ds_b/doc_c' },
        { bucket: 'aqs-files' },
      ]),
    );
    const expiresInMs = Date.parse(policy.expiration) - now;
    expect(expiresInMs).toBeGreaterThan(14 * 60_000);
    expect(expiresInMs).toBeLessThanOrEqual(15 * 60_000);
  });

  it('presigns a GET of the object at the bucket address, serving it as asked, for the time asked', async () => {
    const now = Date.parse('2026-11-29T06:00:00Z');
    const storage = new S3FileStorage(client, 'aqs-files', () => now);

    const url = new URL(
      await storage.presignDownload({
        key: 'files/org_a/ds_b/doc_c',
        contentType: 'application/pdf',
        contentDisposition: 'inline; filename="warranty.pdf"',
        expiresAt: new Date(now + 5 * 60_000),
      }),
    );

    expect(`${url.origin}${url.pathname}`).toBe(
      'https://aqs-files.s3.eu-west-1.amazonaws.com/files/org_a/ds_b/doc_c',
    );
    expect(url.searchParams.get('X-Amz-Expires')).toBe('300');
    expect(url.searchParams.get('X-Amz-Credential')).toBe(
      'AKIAEXAMPLE/20261129/eu-west-1/s3/aws4_request',
    );
    expect(url.searchParams.get('response-content-type')).toBe('application/pdf');
    expect(url.searchParams.get('response-content-disposition')).toBe(
      'inline; filename="warranty.pdf"',
    );
    expect(url.searchParams.get('X-Amz-Date')).toBe('20261129T060000Z');
    expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
  });
});
