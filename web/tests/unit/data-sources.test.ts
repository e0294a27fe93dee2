import { ApiError } from '../../src/api/api-error';
import { uploadRefusal } from '../../src/api/upload';
import {
  describeDocuments,
  describeEstimate,
  isSyncRunning,
  nextPollDelay,
  POLL,
  retryDelay,
} from '../../src/screens/data-sources/sync-progress';
import {
  batchEntry,
  batches,
  describeUpload,
  formatBytes,
  refusedEntries,
  settle,
  summarizeUploads,
  type Upload,
  type UploadedFile,
} from '../../src/screens/data-sources/uploads';

const headers = (values: Record<string, string> = {}) => ({
  status: 400,
  headers: new Headers(values),
});

describe('sync progress (P250)', () => {
  it('reads a running sync soon, then less often while nothing moves, never past 10 s', () => {
    let delay = nextPollDelay(null, false);
    const delays = [delay];
    for (let read = 0; read < 8; read += 1) {
      delay = nextPollDelay(delay, false);
      delays.push(delay);
    }

    expect(delays.slice(0, 4)).toEqual([1_000, 1_500, 2_250, 3_375]);
    expect(Math.max(...delays)).toBe(POLL.maxMs);
    expect(nextPollDelay(POLL.maxMs, true)).toBe(POLL.firstMs);
  });

  it('waits what a 429 says before reading again, else a few seconds', () => {
    const throttled = ApiError.from(
      {
        error: { code: 'rate_limit_exceeded', message: 'Slow down', details: { retry_after: 30 } },
      },
      { status: 429, headers: new Headers() },
    );

    expect(retryDelay(throttled)).toBe(30_000);
    expect(retryDelay(ApiError.unreachable(new TypeError('Failed to fetch')))).toBe(POLL.retryMs);
  });

  it('reads again only while a job is queued or running', () => {
    expect(isSyncRunning({ job_status: 'queued' })).toBe(true);
    expect(isSyncRunning({ job_status: 'running' })).toBe(true);
    expect(isSyncRunning({ job_status: 'succeeded' })).toBe(false);
    expect(isSyncRunning({ job_status: 'failed' })).toBe(false);
    expect(isSyncRunning({ job_status: null })).toBe(false);
    expect(isSyncRunning(null)).toBe(false);
  });

  it('says when the service expects the end, and nothing when it has no estimate', () => {
    const now = Date.parse('2026-11-21T10:00:00Z');

    expect(describeEstimate('2026-11-21T10:02:05Z', now)).toMatch(
      /^in about 2 min 5 s \(around .+\)$/,
    );
    expect(describeEstimate('2026-11-21T10:00:00Z', now)).toMatch(/^any moment/);
    expect(describeEstimate(null, now)).toBeNull();
    expect(describeEstimate('not a date', now)).toBeNull();
  });

  it('counts documents against the total when there is one', () => {
    expect(describeDocuments(12, 50)).toBe('12 of 50 documents');
    expect(describeDocuments(1, null)).toBe('1 document');
  });
});

describe('file uploads (D25, P108)', () => {
  const upload = (change: Partial<Upload> = {}): Upload => ({
    key: 'k1',
    name: 'guide.md',
    size: 2048,
    phase: 'indexing',
    sent: 1,
    message: null,
    documentId: 'doc_1',
    ...change,
  });
  const listed = (change: Partial<UploadedFile>): UploadedFile => ({
    id: 'doc_1',
    data_source_id: 'ds_1',
    filename: 'guide.md',
    content_type: 'text/markdown',
    status: 'processing',
    size_bytes: 2048,
    sha256: null,
    chunks_indexed: 0,
    error: null,
    upload_expires_at: '2026-11-21T10:15:00Z',
    created_at: '2026-11-21T10:00:00Z',
    updated_at: '2026-11-21T10:00:00Z',
    indexed_at: null,
    ...change,
  });

  it('declares each file by name, the type the browser knows and its size', () => {
    expect(batchEntry({ name: 'a.md', type: 'text/markdown', size: 3 })).toEqual({
      filename: 'a.md',
      content_type: 'text/markdown',
      size_bytes: 3,
    });
    expect(batchEntry({ name: 'a.docx', type: '', size: 3 })).toEqual({
      filename: 'a.docx',
      size_bytes: 3,
    });
  });

  it('sends 250 files as batches of 100, 100 and 50', () => {
    const files = Array.from({ length: 250 }, (_, index) => index);
    expect(batches(files).map((batch) => batch.length)).toEqual([100, 100, 50]);
  });

  it("reads which entries a batch's 400 refused, and why", () => {
    const refused = ApiError.from(
      {
        error: {
          code: 'invalid_request',
          message: '2 of 3 files cannot be uploaded, so none were',
          details: {
            fields: [
              { path: 'files.1.filename', message: 'setup.exe is not an accepted type' },
              { path: 'files.2.size_bytes', message: 'files are at most 50 MiB' },
              { path: 'name', message: 'unrelated' },
            ],
          },
        },
      },
      headers(),
    );

    expect([...refusedEntries(refused)]).toEqual([
      [1, 'Setup.exe is not an accepted type.'],
      [2, 'Files are at most 50 MiB.'],
    ]);
    expect(refusedEntries(new Error('no')).size).toBe(0);
  });

  it('settles an upload from the file list: indexed with its chunks, or failed with the reason', () => {
    expect(settle(upload(), listed({ status: 'indexed', chunks_indexed: 3 }))).toMatchObject({
      phase: 'indexed',
      message: '3 chunks',
    });
    expect(settle(upload(), listed({ status: 'failed', error: 'not a PDF' }))).toMatchObject({
      phase: 'failed',
      message: 'not a PDF',
    });
    const waiting = upload();
    expect(settle(waiting, listed({ status: 'processing' }))).toBe(waiting);
    expect(settle(waiting, undefined)).toBe(waiting);
  });

  it('does not settle a replacing upload on the record of the file it replaces', () => {
    const replacing = upload({ presignedAt: '2026-11-21T10:05:00Z' });
    const before = listed({
      status: 'indexed',
      chunks_indexed: 2,
      updated_at: '2026-11-21T10:05:00Z',
    });
    const after = listed({
      status: 'indexed',
      chunks_indexed: 4,
      updated_at: '2026-11-21T10:05:09Z',
    });

    expect(settle(replacing, before)).toBe(replacing);
    expect(settle(replacing, after)).toMatchObject({ phase: 'indexed', message: '4 chunks' });
  });

  it('says where each file is, and sums them up', () => {
    expect(describeUpload(upload({ phase: 'sending', sent: 0.456 }))).toBe('Uploading, 45%');
    expect(describeUpload(upload({ phase: 'indexing' }))).toBe('Indexing');
    expect(describeUpload(upload({ phase: 'refused', message: 'The file is empty.' }))).toBe(
      'Refused: The file is empty.',
    );
    expect(
      summarizeUploads([
        upload({ phase: 'indexed' }),
        upload({ phase: 'failed' }),
        upload({ phase: 'refused' }),
        upload({ phase: 'sending' }),
      ]),
    ).toBe('1 of 4 files indexed, 1 in progress, 1 failed, 1 refused');
  });

  it('writes sizes as people read them', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(12_800)).toBe('13 KB');
    expect(formatBytes(1_536)).toBe('1.5 KB');
    expect(formatBytes(50 * 1024 * 1024 + 1)).toBe('50 MB');
  });

  it("reads an upload's refusal: the local endpoint's JSON, or S3's XML", () => {
    const local = uploadRefusal(
      403,
      JSON.stringify({
        error: {
          code: 'forbidden',
          message: 'The presigned upload has expired; ask for a new one',
          details: {},
        },
        request_id: 'req_1',
      }),
      { getResponseHeader: () => null },
    );
    expect(local.message).toBe('The presigned upload has expired; ask for a new one');
    expect(local.requestId).toBe('req_1');

    const s3 = uploadRefusal(
      400,
      '<?xml version="1.0"?><Error><Code>EntityTooLarge</Code></Error>',
      { getResponseHeader: () => null },
    );
    expect(s3.message).toBe('The file is larger than uploads allow (50 MiB).');
  });
});
