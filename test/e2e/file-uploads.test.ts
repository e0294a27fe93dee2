import { createHash } from 'node:crypto';
import { Document as DocxDocument, HeadingLevel, Packer, Paragraph } from 'docx';
import { FILE_UPLOAD_LIMITS, fileObjectKey } from '../../layers/core/domain/uploaded-file';
import { ingestUploadedFile } from '../../layers/core/use-cases/ingestion/ingest-uploaded-file';
import { toSqsEvent } from '../../lib/local/background-workers';
import { INGESTION_WORKER } from '../../lib/local/functions';
import { pdfOf } from '../support/documents';
import { createAgent, createDataSource, websiteSource } from '../support/fixtures';
import { api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { requestSync, syncStatus } from '../support/sync';
import { createTenant, type TestKey } from '../support/tenants';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';
import {
  fileRecord,
  presignUpload,
  sendUpload,
  type UploadTicket,
  uploadFile,
} from '../support/uploads';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

const REFUNDS_MD = Buffer.from(
  '# Refunds\n\nCustomers may ask for a refund within thirty days of purchase.\n\n' +
    '## Exceptions\n\nGift cards are never refunded, not even for a wombat.\n',
);

async function docxOf(heading: string, text: string): Promise<Buffer> {
  const document = new DocxDocument({
    sections: [
      {
        children: [
          new Paragraph({ text: heading, heading: HeadingLevel.HEADING_1 }),
          new Paragraph({ text }),
        ],
      },
    ],
  });
  return Packer.toBuffer(document);
}

/**
 * File data sources end to end (issue 3; D25, D17, D22): presigned uploads
 * through the local gateway (S3's part on one machine), ingestion by the
 * real ingestion worker off the upload-event queue, and what the files then
 * are to search, query, sync and deletion.
 */
describe('File uploads (D25)', () => {
  const clock = new TestClock();
  let service: TestService;
  let key: string;
  let sourceId: string;
  let other: TestKey;

  beforeAll(async () => {
    service = await startTestService({ clock });
    key = service.adminKey;
    other = await createTenant(service, { name: 'Other org' });
    sourceId = (
      await createDataSource(service, key, {
        type: 'file',
        name: 'Handbook',
        sync_frequency: 'manual',
      })
    ).id;
  });
  afterAll(() => service.end());
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  const filesPath = (source = sourceId) => `/api/v1/data-sources/${source}/files`;
  const ingest = () => service.runtime.workers.stepIngestion();
  const search = async (query: string, source = sourceId) => {
    const response = await api(service.url, '/api/v1/semantic-search', {
      method: 'POST',
      key,
      body: { query, org_id: service.orgId, data_source_ids: [source], top_k: 50 },
    });
    expect(response.status).toBe(200);
    return json(response).chunks as Array<Record<string, any>>;
  };
  const stored = (documentId: string, source = sourceId) =>
    service.runtime.dependencies.fileStorage.read(fileObjectKey(service.orgId, source, documentId));
  const newFileSource = async (name: string) =>
    (await createDataSource(service, key, { type: 'file', name, sync_frequency: 'manual' })).id;

  let refunds: UploadTicket;

  describe('presigning', () => {
    it('answers with a form upload to the gateway, good for 15 minutes, and records the file', async () => {
      const now = clock.now().getTime();
      refunds = await presignUpload(service, key, sourceId, {
        filename: 'refunds.md',
        content_type: 'text/markdown',
        size_bytes: REFUNDS_MD.length,
      });

      expect(refunds).toEqual({
        document_id: expect.stringMatching(/^doc_[0-9a-z]{26}$/),
        upload_url: `${service.url}/_local/uploads`,
        upload_method: 'POST',
        upload_fields: {
          key: fileObjectKey(service.orgId, sourceId, refunds.document_id),
          policy: expect.any(String),
          signature: expect.any(String),
        },
        expires_at: expect.stringMatching(ISO_MS),
        max_bytes: 50 * 1024 * 1024,
        file: {
          id: refunds.document_id,
          data_source_id: sourceId,
          filename: 'refunds.md',
          content_type: 'text/markdown',
          status: 'awaiting_upload',
          size_bytes: null,
          sha256: null,
          chunks_indexed: 0,
          error: null,
          upload_expires_at: refunds.expires_at,
          created_at: expect.stringMatching(ISO_MS),
          updated_at: expect.stringMatching(ISO_MS),
          indexed_at: null,
        },
      });
      // The test clock runs on in real time: the expiry is 15 minutes after the request, give or take.
      const ttl = Date.parse(refunds.expires_at) - now;
      expect(ttl).toBeGreaterThanOrEqual(FILE_UPLOAD_LIMITS.urlTtlSeconds * 1000);
      expect(ttl).toBeLessThan(FILE_UPLOAD_LIMITS.urlTtlSeconds * 1000 + 5_000);
      const listed = json(await api(service.url, filesPath(), { key }));
      expect(listed.files).toEqual([refunds.file]);
    });

    it.each([
      ['a type it cannot read', { filename: 'installer.exe' }, /unsupported file type/],
      [
        'a name without a known extension or content type',
        { filename: 'notes', content_type: 'application/octet-stream' },
        /unsupported file type/,
      ],
      [
        'a declared size over 50 MiB (D17)',
        { filename: 'big.pdf', size_bytes: 50 * 1024 * 1024 + 1 },
        /size_bytes/,
      ],
      ['a path for a name', { filename: '../../etc/passwd.txt' }, /filename/],
      ['a control character in the name', { filename: 'a\u0007b.txt' }, /filename/],
      ['an empty name', { filename: '  ' }, /filename/],
      ['unknown fields', { filename: 'a.txt', bucket: 'elsewhere' }, /bucket/],
    ])('refuses %s with 400 before anything is stored', async (_, body, message) => {
      const before = json(await api(service.url, filesPath(), { key })).files.length;

      const response = await api(service.url, filesPath(), { method: 'POST', key, body });

      expect(response.status).toBe(400);
      expect(json(response).error.code).toBe('invalid_request');
      expect(JSON.stringify(json(response).error)).toMatch(message);
      expect(json(await api(service.url, filesPath(), { key })).files).toHaveLength(before);
    });

    it('refuses uploads to a data source that is not a file source (400)', async () => {
      const website = await createDataSource(service, key, websiteSource());

      const response = await api(service.url, filesPath(website.id), {
        method: 'POST',
        key,
        body: { filename: 'a.txt' },
      });

      expect(response.status).toBe(400);
      expect(json(response).error.message).toMatch(/only be uploaded to a file data source/);
    });

    it('answers 404 for a data source that does not exist', async () => {
      const response = await api(service.url, filesPath('ds_00000000000000000000000000'), {
        method: 'POST',
        key,
        body: { filename: 'a.txt' },
      });
      expect(response.status).toBe(404);
    });
  });

  describe('ingestion', () => {
    it('indexes an upload once it arrives: the file, the data source, search and cited answers', async () => {
      // A fresh ticket: each test moves the clock two minutes, and tickets last fifteen.
      refunds = await presignUpload(service, key, sourceId, {
        filename: 'refunds.md',
        content_type: 'text/markdown',
      });
      const sent = await sendUpload(refunds, REFUNDS_MD, { filename: 'refunds.md' });
      expect(sent.status).toBe(204);
      expect(await stored(refunds.document_id)).toEqual(REFUNDS_MD);

      expect(await ingest()).toBe(1);

      const file = await fileRecord(service, key, sourceId, refunds.document_id);
      expect(file).toMatchObject({
        status: 'indexed',
        size_bytes: REFUNDS_MD.length,
        sha256: sha256(REFUNDS_MD),
        error: null,
        indexed_at: expect.stringMatching(ISO_MS),
      });
      expect(file.chunks_indexed).toBeGreaterThan(0);
      const source = json(await api(service.url, `/api/v1/data-sources/${sourceId}`, { key }));
      expect(source).toMatchObject({ status: 'active', chunks_indexed: file.chunks_indexed });

      const chunks = await search('gift cards refunded wombat');
      expect(chunks[0]).toMatchObject({
        document_id: refunds.document_id,
        document_title: 'refunds.md — Refunds',
        document_url: `${service.url}/api/v1/data-sources/${sourceId}/files/${refunds.document_id}/content`,
        data_source_id: sourceId,
        heading_path: ['Refunds', 'Exceptions'],
      });
      expect(chunks[0]?.text).toContain('Gift cards are never refunded');

      const agent = await createAgent(service, key, {
        name: 'Handbook desk',
        data_source_ids: [sourceId],
      });
      const answer = await api(service.url, '/api/v1/query', {
        method: 'POST',
        key,
        body: { agent_id: agent.id, query: 'Are gift cards refunded?' },
      });
      expect(answer.status).toBe(200);
      expect(json(answer).sources[0]).toMatchObject({
        document_id: refunds.document_id,
        data_source_id: sourceId,
        document_title: 'refunds.md — Refunds',
        document_url: `${service.url}/api/v1/data-sources/${sourceId}/files/${refunds.document_id}/content`,
      });
      expect(json(answer).response).toMatch(/Gift cards are never refunded/);
    });

    it('opens a cited file at its document_url: a redirect to a short-lived download of its bytes', async () => {
      const [chunk] = await search('gift cards refunded wombat');
      const contentPath = `/api/v1/data-sources/${sourceId}/files/${refunds.document_id}/content`;
      expect(chunk?.document_url).toBe(`${service.url}${contentPath}`);

      const opened = await api(service.url, contentPath, { key, redirect: 'manual' });

      expect(opened.status).toBe(302);
      expect(opened.headers.get('cache-control')).toBe('no-store');
      const location = opened.headers.get('location') ?? '';
      // The download needs no credentials: the address is the authorization, for 5 minutes.
      const download = await fetch(location);
      expect(download.status).toBe(200);
      expect(Buffer.from(await download.arrayBuffer())).toEqual(REFUNDS_MD);
      expect(download.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
      expect(download.headers.get('content-disposition')).toBe(
        `inline; filename="refunds.md"; filename*=UTF-8''refunds.md`,
      );
      // Shown on the API's own origin: sandboxed, so nothing in an uploaded page runs as the console.
      expect(download.headers.get('content-security-policy')).toContain('sandbox');
      const tampered = new URL(location);
      tampered.searchParams.set('signature', 'x'.repeat(43));
      expect((await fetch(tampered)).status).toBe(403);

      clock.advance(FILE_UPLOAD_LIMITS.downloadTtlSeconds * 1000);
      expect((await fetch(location)).status).toBe(403);
    });

    it('answers 404 for the content of a file whose upload never came, or that does not exist', async () => {
      const pending = await presignUpload(service, key, sourceId, { filename: 'later.md' });
      for (const documentId of [pending.document_id, 'doc_00000000000000000000000000']) {
        const response = await api(
          service.url,
          `/api/v1/data-sources/${sourceId}/files/${documentId}/content`,
          { key, redirect: 'manual' },
        );
        expect(response.status).toBe(404);
      }
    });

    it('reads PDF, DOCX, HTML, CSV and plain text', async () => {
      const files: Array<[string, Buffer, string]> = [
        [
          'warranty.pdf',
          await pdfOf(['Warranty', 'The kettle warranty lasts two years from delivery.']),
          'kettle warranty two years',
        ],
        [
          'shipping.docx',
          await docxOf('Shipping', 'Parcels to the islands travel by ferry on Tuesdays.'),
          'parcels islands ferry',
        ],
        [
          'returns.html',
          Buffer.from(
            '<html><head><title>Returns</title></head><body><nav>Menu</nav><h1>Returns</h1><p>Returned toasters need their original box.</p></body></html>',
          ),
          'returned toasters original box',
        ],
        [
          'stores.csv',
          Buffer.from('city,opening\nLisbon,Mondays from nine\nPorto,Saturdays only\n'),
          'Porto Saturdays',
        ],
        [
          'hours.txt',
          Buffer.from('The help line answers calls until eight in the evening.'),
          'help line calls evening',
        ],
      ];
      const tickets = [];
      for (const [name, bytes] of files)
        tickets.push(await uploadFile(service, key, sourceId, name, bytes));

      expect(await ingest()).toBe(files.length);

      for (const [index, [name, , words]] of files.entries()) {
        const ticket = tickets[index] as UploadTicket;
        expect(await fileRecord(service, key, sourceId, ticket.document_id)).toMatchObject({
          filename: name,
          status: 'indexed',
        });
        expect((await search(words))[0]).toMatchObject({ document_id: ticket.document_id });
      }
    });

    it('recognises the same bytes uploaded again, and replaces the document when they change', async () => {
      const before = await fileRecord(service, key, sourceId, refunds.document_id);
      clock.advance(1_000);
      expect((await sendUpload(refunds, REFUNDS_MD)).status).toBe(204);
      await ingest();
      expect(await fileRecord(service, key, sourceId, refunds.document_id)).toEqual(before);

      const changed = Buffer.from(
        '# Refunds\n\nRefunds are now paid within a fortnight, as store credit.\n',
      );
      expect((await sendUpload(refunds, changed)).status).toBe(204);
      await ingest();

      expect(await fileRecord(service, key, sourceId, refunds.document_id)).toMatchObject({
        status: 'indexed',
        sha256: sha256(changed),
      });
      const texts = (await search('refund gift cards wombat fortnight store credit')).map(
        (chunk) => chunk.text,
      );
      expect(texts.join(' ')).toContain('fortnight');
      expect(texts.join(' ')).not.toContain('wombat');
    });

    it('records a file that is not what its name says as failed; a source with nothing else fails (D22)', async () => {
      const lonely = await newFileSource('Lonely');
      const ticket = await uploadFile(
        service,
        key,
        lonely,
        'scan.pdf',
        Buffer.from('just text, no PDF here'),
      );

      await ingest();

      expect(await fileRecord(service, key, lonely, ticket.document_id)).toMatchObject({
        status: 'failed',
        chunks_indexed: 0,
        error: expect.stringMatching(/scan\.pdf/),
      });
      const source = json(await api(service.url, `/api/v1/data-sources/${lonely}`, { key }));
      expect(source).toMatchObject({ status: 'failed', chunks_indexed: 0 });
    });

    it('keeps a source active when one of its files fails', async () => {
      const ticket = await uploadFile(
        service,
        key,
        sourceId,
        'broken.docx',
        Buffer.from('not a zip'),
      );

      await ingest();

      expect(await fileRecord(service, key, sourceId, ticket.document_id)).toMatchObject({
        status: 'failed',
      });
      const source = json(await api(service.url, `/api/v1/data-sources/${sourceId}`, { key }));
      expect(source.status).toBe('active');
    });

    it('discards an upload whose data source was deleted in between', async () => {
      const doomed = await newFileSource('Doomed');
      const ticket = await presignUpload(service, key, doomed, { filename: 'late.txt' });
      const deleted = await api(service.url, `/api/v1/data-sources/${doomed}`, {
        method: 'DELETE',
        key,
      });
      expect(deleted.status).toBe(204);

      expect((await sendUpload(ticket, Buffer.from('arrives too late'))).status).toBe(204);
      expect(await ingest()).toBe(1);

      expect(await stored(ticket.document_id, doomed)).toBeNull();
    });
  });

  describe('the ingestion worker', () => {
    const deliver = (...bodies: unknown[]) =>
      INGESTION_WORKER(
        toSqsEvent(
          bodies.map((body, index) => ({
            messageId: `m${index}`,
            receiptHandle: `r${index}`,
            body,
            receiveCount: 1,
            sentAt: Date.now(),
          })),
          'ingestion',
        ),
      );

    it("acknowledges S3's test event, malformed messages and keys that are not uploads", async () => {
      const result = await deliver(
        { Service: 'Amazon S3', Event: 's3:TestEvent', Bucket: 'aqs-files' },
        'not json at all',
        { Records: [{ eventName: 'ObjectCreated:Put', s3: { object: { key: 'elsewhere/x' } } }] },
        { Records: [{ eventName: 'ObjectRemoved:Delete', s3: { object: { key: 'files/x' } } }] },
      );
      expect(result).toEqual({ batchItemFailures: [] });
    });

    it('reads the URL-encoded key S3 sends', async () => {
      const source = await newFileSource('Encoded');
      const ticket = await presignUpload(service, key, source, { filename: 'enc.txt' });
      expect((await sendUpload(ticket, Buffer.from('Encoded keys decode.'))).status).toBe(204);
      // Delivered by hand before the gateway's own event is consumed, with the key as S3 encodes it.
      const encoded = encodeURIComponent(ticket.upload_fields.key ?? '');

      const result = await deliver({
        Records: [{ eventName: 'ObjectCreated:Post', s3: { object: { key: encoded } } }],
      });

      expect(result).toEqual({ batchItemFailures: [] });
      expect(await fileRecord(service, key, source, ticket.document_id)).toMatchObject({
        status: 'indexed',
      });
      expect(await ingest()).toBe(1);
    });
  });

  describe('crashes', () => {
    it('finishes an ingestion that died after indexing, without duplicate chunks', async () => {
      const source = await newFileSource('Crashy');
      const ticket = await uploadFile(
        service,
        key,
        source,
        'crash.md',
        Buffer.from('# Crash\n\nThe bilby mascot survives every crash test.'),
      );
      const deps = service.runtime.dependencies;
      const objectKey = ticket.upload_fields.key ?? '';
      // The worker dies after the chunks and the data source are written, before the file's record.
      const files = Object.assign(Object.create(deps.files), {
        update: async (...args: Parameters<typeof deps.files.update>) => {
          if (args[3].status === 'indexed') throw new Error('worker killed');
          return deps.files.update(...args);
        },
      });
      const dying = { ...deps, files };
      await expect(ingestUploadedFile(dying, objectKey)).rejects.toThrow('worker killed');
      const chunksAfterCrash = (await search('bilby mascot crash', source)).length;
      expect(chunksAfterCrash).toBeGreaterThan(0);

      // The message comes back: the retry completes the record and replaces, not adds, chunks.
      expect(await ingest()).toBe(1);

      expect(await fileRecord(service, key, source, ticket.document_id)).toMatchObject({
        status: 'indexed',
      });
      expect(await search('bilby mascot crash', source)).toHaveLength(chunksAfterCrash);
      expect(await ingestUploadedFile(deps, objectKey)).toBe('unchanged');
    });
  });

  describe('a file deleted while it is ingested', () => {
    it('leaves none of its chunks behind', async () => {
      const source = await newFileSource('Racy');
      const ticket = await uploadFile(
        service,
        key,
        source,
        'race.md',
        Buffer.from('# Race\n\nThe numbat outran the deletion.'),
      );
      const deps = service.runtime.dependencies;
      // The file is deleted after its chunks are written, just before ingestion records them.
      const files = Object.assign(Object.create(deps.files), {
        update: async (...args: Parameters<typeof deps.files.update>) => {
          if (args[3].status === 'indexed') await deps.files.delete(args[0], args[1], args[2]);
          return deps.files.update(...args);
        },
      });

      const outcome = await ingestUploadedFile({ ...deps, files }, ticket.upload_fields.key ?? '');

      expect(outcome).toBe('orphan');
      expect(await search('numbat outran deletion', source)).toEqual([]);
      await ingest();
      expect(await search('numbat outran deletion', source)).toEqual([]);
    });
  });

  describe('the upload URL', () => {
    let ticket: UploadTicket;
    const bytes = Buffer.from('A perfectly good text file.');

    beforeAll(async () => {
      ticket = await presignUpload(service, key, sourceId, { filename: 'guarded.txt' });
    });

    const refusedAndNothingKept = async (
      sent: { status: number; body: any },
      status: number,
      message: RegExp,
    ) => {
      expect(sent.status).toBe(status);
      expect(sent.body).toEqual({
        error: { code: expect.any(String), message: expect.stringMatching(message), details: {} },
        request_id: expect.stringMatching(/^req_/),
      });
      expect(await stored(ticket.document_id)).toBeNull();
      expect(await ingest()).toBe(0);
    };

    it('refuses a tampered signature (403)', async () => {
      const fields = {
        ...ticket.upload_fields,
        signature: `${ticket.upload_fields.signature?.slice(0, -2)}AA`,
      };
      await refusedAndNothingKept(await sendUpload(ticket, bytes, { fields }), 403, /signature/);
    });

    it('refuses a key other than the signed one, such as another organization’s (400)', async () => {
      const otherKey = fileObjectKey(other.orgId, sourceId, ticket.document_id);
      const fields = { ...ticket.upload_fields, key: otherKey };
      const sent = await sendUpload(ticket, bytes, { fields });
      expect(sent.status).toBe(400);
      expect(await service.runtime.dependencies.fileStorage.read(otherKey)).toBeNull();
      await refusedAndNothingKept(sent, 400, /key, policy or signature/);
    });

    it('refuses a form without its fields or without a file (400)', async () => {
      await refusedAndNothingKept(
        await sendUpload(ticket, bytes, { fields: {} }),
        400,
        /key, policy or signature/,
      );
      const form = new FormData();
      for (const [name, value] of Object.entries(ticket.upload_fields)) form.append(name, value);
      const response = await fetch(ticket.upload_url, { method: 'POST', body: form });
      await refusedAndNothingKept(
        { status: response.status, body: await response.json() },
        400,
        /no `file` part/,
      );
    });

    it('refuses a body that is not a multipart form (400)', async () => {
      const response = await fetch(ticket.upload_url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ file: 'x' }),
      });
      await refusedAndNothingKept(
        { status: response.status, body: await response.json() },
        400,
        /multipart/,
      );
    });

    it('refuses an empty file (400)', async () => {
      await refusedAndNothingKept(await sendUpload(ticket, Buffer.alloc(0)), 400, /empty/);
    });

    it('refuses a file over 50 MiB while it arrives, keeping nothing (413, D17)', async () => {
      const tooBig = Buffer.alloc(FILE_UPLOAD_LIMITS.maxBytes + 1, 0x61);
      await refusedAndNothingKept(await sendUpload(ticket, tooBig), 413, /larger/);
    });

    it('refuses an upload after its URL expired (403)', async () => {
      clock.advance(FILE_UPLOAD_LIMITS.urlTtlSeconds * 1000);
      await refusedAndNothingKept(await sendUpload(ticket, bytes), 403, /expired/);
    });
  });

  describe('sync, deletion and tenants', () => {
    it('re-indexes a file source from its stored files when synced', async () => {
      const before = await search('kettle warranty two years');

      await requestSync(service, key, sourceId);
      await service.runtime.workers.stepSync();

      const status = await syncStatus(service, key, sourceId);
      expect(status).toMatchObject({ status: 'active', job_status: 'succeeded' });
      // refunds, five formats; the broken DOCX is skipped and said so.
      expect(status.documents_processed).toBe(6);
      expect(status.error).toMatch(/broken\.docx/);
      expect(await search('kettle warranty two years')).toEqual(before);
    });

    it('deletes a file: its bytes and record at once, its chunks by the queued purge (P45)', async () => {
      const response = await api(service.url, `${filesPath()}/${refunds.document_id}`, {
        method: 'DELETE',
        key,
      });

      expect(response.status).toBe(204);
      // The purge travels on the sync queue, as in the cloud; the worker is stepped by hand here.
      await service.runtime.workers.stepSync();
      expect(
        (await search('refunds fortnight store credit')).map((chunk) => chunk.document_id),
      ).not.toContain(refunds.document_id);
      expect(await stored(refunds.document_id)).toBeNull();
      const again = await api(service.url, `${filesPath()}/${refunds.document_id}`, { key });
      expect(again.status).toBe(404);
    });

    it('keeps every file route of one organization out of reach of another (404)', async () => {
      const [file] = json(await api(service.url, filesPath(), { key })).files;
      const attempts: Array<[string, string, unknown]> = [
        ['POST', filesPath(), { filename: 'intruder.txt' }],
        ['GET', filesPath(), undefined],
        ['GET', `${filesPath()}/${file.id}`, undefined],
        ['GET', `${filesPath()}/${file.id}/content`, undefined],
        ['DELETE', `${filesPath()}/${file.id}`, undefined],
      ];
      for (const [method, path, body] of attempts) {
        const response = await api(service.url, path, {
          method,
          key: other.key,
          redirect: 'manual',
          ...(body ? { body } : {}),
        });
        expect({ method, path, status: response.status }).toEqual({ method, path, status: 404 });
      }
      expect(await fileRecord(service, key, sourceId, file.id)).toEqual(file);
    });

    it('deletes the files of a deleted data source', async () => {
      const shortLived = await newFileSource('Short-lived');
      const ticket = await uploadFile(
        service,
        key,
        shortLived,
        'memo.txt',
        Buffer.from('A short memo.'),
      );
      await ingest();

      const response = await api(service.url, `/api/v1/data-sources/${shortLived}`, {
        method: 'DELETE',
        key,
      });

      expect(response.status).toBe(204);
      expect(await stored(ticket.document_id, shortLived)).toBeNull();
      expect(await service.runtime.dependencies.files.list(service.orgId, shortLived)).toEqual([]);
    });
  });
});
