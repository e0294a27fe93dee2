import fc from 'fast-check';
import { FILE_UPLOAD_LIMITS } from '../../layers/core/domain/uploaded-file';
import { createDataSource } from '../support/fixtures';
import { fuzzBody } from '../support/http-arbitraries';
import { type ApiResponse, api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { createKey, createTenant, type TestKey } from '../support/tenants';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';
import { sendUpload, type UploadTicket } from '../support/uploads';
import { createTestUser, signedIn } from '../support/web-session';

/** Each property makes up to a hundred requests: more than jest's 30 s on a loaded 2-core machine. */
const SLOW_MS = 180_000;

const filesPath = (sourceId: string) => `/api/v1/data-sources/${sourceId}/files`;
const legacyFilesPath = (sourceId: string) => `/api/data-specs/${sourceId}/files`;

/** `n` distinct small Markdown files as a batch body's entries. */
function entries(n: number, prefix = 'guide'): { filename: string; size_bytes: number }[] {
  return Array.from({ length: n }, (_, index) => ({
    filename: `${prefix}-${index}.md`,
    size_bytes: contentOf(index).length,
  }));
}

function contentOf(index: number): Buffer {
  return Buffer.from(
    `# Guide ${index}\n\nThe part numbered ${index} ships in a box of ${index + 3} pieces.\n`,
  );
}

/** The fields a 400 names, in either error shape. */
function fieldsOf(response: ApiResponse): { path: string; message: string }[] {
  const body = json(response);
  return (body.error?.details?.fields ?? body.details?.fields ?? body.fields ?? []) as {
    path: string;
    message: string;
  }[];
}

/**
 * Issue 10 item 6, P108: `POST /api/v1/data-sources/:id/files` (and the
 * legacy `/api/data-specs/:id/files`, P109) takes `files`, 1 to 100 files,
 * and answers a presigned upload ticket for each, in order, for one Write
 * request; every entry is checked before any record is written, so a bad
 * entry refuses the whole batch (D5 shapes, D17 "400 naming the field").
 */
describe('Batches of file uploads (issue 10, P108)', () => {
  const clock = new TestClock();
  let service: TestService;
  let key: string;
  let sourceId: string;
  let other: TestKey;

  const fileCount = async (id = sourceId) =>
    (await service.runtime.dependencies.files.list(service.orgId, id)).length;

  beforeAll(async () => {
    service = await startTestService({ clock });
    key = service.adminKey;
    other = await createTenant(service, { name: 'Other org' });
    sourceId = (
      await createDataSource(service, key, {
        type: 'file',
        name: 'Manuals',
        sync_frequency: 'manual',
      })
    ).id;
  });
  afterAll(() => service.end());
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  it(
    'presigns 100 files in one Write request; each ticket uploads its own file, which ends indexed',
    async () => {
      const batch = entries(FILE_UPLOAD_LIMITS.batchMax);
      const response = await api(service.url, filesPath(sourceId), {
        method: 'POST',
        key,
        body: { files: batch },
      });

      expect(response.status).toBe(201);
      // One request of the key's Write bucket (burst 15), whatever the batch's size.
      expect(response.headers.get('x-ratelimit-remaining')).toBe('14');
      const tickets = json(response).tickets as UploadTicket[];
      expect(tickets.map((ticket) => ticket.file.filename)).toEqual(
        batch.map((entry) => entry.filename),
      );
      expect(new Set(tickets.map((ticket) => ticket.document_id)).size).toBe(tickets.length);
      for (const ticket of tickets) {
        expect(ticket).toMatchObject({
          upload_method: 'POST',
          max_bytes: FILE_UPLOAD_LIMITS.maxBytes,
          file: { id: ticket.document_id, status: 'awaiting_upload', data_source_id: sourceId },
        });
      }

      // Each ticket is a presigned form upload of its own file (S3's presigned POST on one machine).
      for (const [index, ticket] of tickets.entries()) {
        const sent = await sendUpload(ticket, contentOf(index), { filename: `guide-${index}.md` });
        expect(sent.status).toBe(204);
      }
      await service.runtime.workers.stepIngestion();

      const listed = json(await api(service.url, filesPath(sourceId), { key })).files as {
        id: string;
        filename: string;
        status: string;
        chunks_indexed: number;
      }[];
      const byId = new Map(listed.map((file) => [file.id, file]));
      for (const [index, ticket] of tickets.entries()) {
        expect(byId.get(ticket.document_id)).toMatchObject({
          filename: `guide-${index}.md`,
          status: 'indexed',
          chunks_indexed: expect.any(Number),
        });
      }
      const search = json(
        await api(service.url, '/api/v1/semantic-search', {
          method: 'POST',
          key,
          body: {
            query: 'part numbered 57 box of 60 pieces',
            org_id: service.orgId,
            data_source_ids: [sourceId],
            top_k: 3,
          },
        }),
      );
      expect(search.chunks.map((chunk: { text: string }) => chunk.text).join('\n')).toContain(
        'numbered 57',
      );
    },
    SLOW_MS,
  );

  it('keeps the one-file body and its answer as they were', async () => {
    const response = await api(service.url, filesPath(sourceId), {
      method: 'POST',
      key,
      body: { filename: 'single.md', content_type: 'text/markdown', size_bytes: 10 },
    });
    expect(response.status).toBe(201);
    expect(Object.keys(json(response)).sort()).toEqual([
      'document_id',
      'expires_at',
      'file',
      'max_bytes',
      // Added since: whether the name was already in the source (an upload replaces that file).
      'replaces_existing',
      'upload_fields',
      'upload_method',
      'upload_url',
    ]);
    const missing = await api(service.url, filesPath(sourceId), { method: 'POST', key, body: {} });
    expect(missing.status).toBe(400);
    expect(fieldsOf(missing).map((field) => field.path)).toEqual(['filename']);
  });

  it('refuses 101 files, an empty batch, and one file mixed with files (400), writing nothing', async () => {
    const before = await fileCount();
    const cases = [
      { body: { files: entries(FILE_UPLOAD_LIMITS.batchMax + 1) }, path: 'files' },
      { body: { files: [] }, path: 'files' },
      { body: { filename: 'a.md', files: entries(2) }, path: 'filename' },
    ];
    for (const { body, path } of cases) {
      clock.advance(REFILL_ALL_BUCKETS_MS);
      const response = await api(service.url, filesPath(sourceId), { method: 'POST', key, body });
      expect(response.status).toBe(400);
      expect(json(response).error.code).toBe('invalid_request');
      expect(fieldsOf(response).map((field) => field.path)).toContain(path);
    }
    expect(await fileCount()).toBe(before);
  });

  it('refuses the whole batch for one bad entry, naming each bad entry by its index', async () => {
    const before = await fileCount();
    const badType = entries(50);
    badType[37] = { filename: 'installer.exe', size_bytes: 10 };
    const typeRefusal = await api(service.url, filesPath(sourceId), {
      method: 'POST',
      key,
      body: { files: badType },
    });
    expect(typeRefusal.status).toBe(400);
    expect(fieldsOf(typeRefusal)).toEqual([
      { path: 'files.37.filename', message: expect.stringMatching(/unsupported file type/) },
    ]);

    clock.advance(REFILL_ALL_BUCKETS_MS);
    const badFields = [
      ...entries(3),
      { filename: '../etc/passwd.txt' },
      { filename: 'big.pdf', size_bytes: FILE_UPLOAD_LIMITS.maxBytes + 1 },
      { filename: 'x.md', colour: 'red' },
    ];
    const fieldRefusal = await api(service.url, filesPath(sourceId), {
      method: 'POST',
      key,
      body: { files: badFields },
    });
    expect(fieldRefusal.status).toBe(400);
    const error = json(fieldRefusal).error;
    expect(fieldsOf(fieldRefusal).map((field) => field.path)).toEqual([
      'files.3.filename',
      'files.4.size_bytes',
    ]);
    expect(error.details.unknown_fields).toEqual(['files.5.colour']);
    expect(await fileCount()).toBe(before);
  });

  it('answers on the legacy path too, camelCase accepted, errors in the flat shape (D5, D7)', async () => {
    const created = await api(service.url, legacyFilesPath(sourceId), {
      method: 'POST',
      key,
      body: {
        files: [
          { filename: 'a.csv', contentType: 'text/csv', sizeBytes: 20 },
          { filename: 'b.txt' },
        ],
      },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('deprecation')).toBe('true');
    expect((json(created).tickets as UploadTicket[]).map((ticket) => ticket.file)).toEqual([
      expect.objectContaining({ filename: 'a.csv', content_type: 'text/csv' }),
      expect.objectContaining({ filename: 'b.txt', content_type: null }),
    ]);

    clock.advance(REFILL_ALL_BUCKETS_MS);
    const before = await fileCount();
    const refused = await api(service.url, legacyFilesPath(sourceId), {
      method: 'POST',
      key,
      body: { files: [{ filename: 'ok.md' }, { filename: 'tool.exe' }] },
    });
    expect(refused.status).toBe(400);
    const body = json(refused);
    expect(typeof body.error).toBe('string');
    expect(body.error).toMatch(/files\.1/);
    expect(body.request_id).toBe(refused.headers.get('x-request-id'));
    expect(await fileCount()).toBe(before);
  });

  it("keeps another organization's data source out of reach (404), writing nothing", async () => {
    const before = await fileCount();
    for (const path of [filesPath(sourceId), legacyFilesPath(sourceId)]) {
      const response = await api(service.url, path, {
        method: 'POST',
        key: other.key,
        body: { files: entries(3) },
      });
      expect(response.status).toBe(404);
    }
    expect(await fileCount()).toBe(before);
  });

  it('refuses a website source (400) and an unknown one (404)', async () => {
    const website = await createDataSource(service, key, {
      type: 'website',
      name: 'Site',
      config: { url: 'https://example.com/' },
      sync_frequency: 'manual',
    });
    const wrongType = await api(service.url, filesPath(website.id), {
      method: 'POST',
      key,
      body: { files: entries(2) },
    });
    expect(wrongType.status).toBe(400);
    const unknown = await api(service.url, filesPath('ds_00000000000000000000000000'), {
      method: 'POST',
      key,
      body: { files: entries(2) },
    });
    expect(unknown.status).toBe(404);
  });

  it('needs the Write scope, or a configure role in the web application (403 otherwise)', async () => {
    const reader = await createKey(service, service.orgId, { scopes: ['Read'] });
    const writer = await createKey(service, service.orgId, { scopes: ['Write'] });
    const body = { files: entries(2) };
    expect(
      (await api(service.url, filesPath(sourceId), { method: 'POST', key: reader.key, body }))
        .status,
    ).toBe(403);
    expect(
      (await api(service.url, filesPath(sourceId), { method: 'POST', key: writer.key, body }))
        .status,
    ).toBe(201);

    const viewer = await signedIn(service, await createTestUser(service, { role: 'readonly' }));
    expect((await viewer.request(filesPath(sourceId), { method: 'POST', body })).status).toBe(403);
    const trainer = await signedIn(service, await createTestUser(service, { role: 'train' }));
    expect((await trainer.request(filesPath(sourceId), { method: 'POST', body })).status).toBe(403);
    const configurer = await signedIn(
      service,
      await createTestUser(service, { role: 'configure' }),
    );
    expect((await configurer.request(filesPath(sourceId), { method: 'POST', body })).status).toBe(
      201,
    );
  });

  it(
    'answers every body well (fuzzed), and writes a record per ticket only when it says 201',
    async () => {
      const entry = fc.record(
        {
          filename: fc.oneof(
            fc.constantFrom('a.md', 'b.pdf', 'c.docx', 'd.csv', 'e.exe', '', ' ', 'x/y.txt'),
            fc.string({ maxLength: 300 }),
          ),
          content_type: fc.oneof(
            fc.constantFrom('text/plain', 'application/pdf', 'image/png', ''),
            fc.string({ maxLength: 20 }),
          ),
          size_bytes: fc.oneof(
            fc.integer({ min: -1, max: FILE_UPLOAD_LIMITS.maxBytes + 1 }),
            fc.double(),
            fc.string({ maxLength: 5 }),
          ),
        },
        { requiredKeys: ['filename'] },
      );
      const batch = fc
        .array(entry, { minLength: 0, maxLength: FILE_UPLOAD_LIMITS.batchMax + 2 })
        .map((files) => ({ text: JSON.stringify({ files }), contentType: 'application/json' }));
      const body = fc.oneof(
        { weight: 3, arbitrary: batch },
        {
          weight: 2,
          arbitrary: fuzzBody([
            { files: entries(3) },
            { filename: 'one.md', size_bytes: 5 },
            { files: [{ filename: 'a.txt', content_type: 'text/plain' }] },
          ]),
        },
      );
      const paths = fc.constantFrom(filesPath(sourceId), legacyFilesPath(sourceId));
      await fc.assert(
        fc.asyncProperty(paths, body, async (path, sent) => {
          clock.advance(REFILL_ALL_BUCKETS_MS);
          const before = await fileCount();
          const response = await api(service.url, path, {
            method: 'POST',
            key,
            ...(sent.text !== undefined ? { rawBody: sent.text } : {}),
            headers: sent.contentType ? { 'content-type': sent.contentType } : {},
          });
          expect(response.status).toBeLessThan(500);
          expect([201, 400, 413, 415]).toContain(response.status);
          const answer = json(response);
          // A name the source already has replaces that file's record rather than adding one.
          const tickets: Array<{ replaces_existing: boolean }> =
            response.status !== 201
              ? []
              : Array.isArray(answer.tickets)
                ? answer.tickets
                : [answer];
          const written = tickets.filter((ticket) => !ticket.replaces_existing).length;
          expect(await fileCount()).toBe(before + written);
          if (response.status >= 400) {
            if (path.startsWith('/api/v1/')) expect(typeof answer.error.code).toBe('string');
            else expect(typeof answer.error).toBe('string');
          }
        }),
        { numRuns: 60 },
      );
    },
    SLOW_MS,
  );
});
