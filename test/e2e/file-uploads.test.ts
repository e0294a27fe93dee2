import { FILE_UPLOAD_LIMITS, fileObjectKey } from '../../layers/core/domain/uploaded-file';
import { pdfOf } from '../support/documents';
import { createAgent, createDataSource, websiteSource } from '../support/fixtures';
import { api, json } from '../support/http-client';
import { requestSync, syncStatus } from '../support/sync';
import {
  fileRecord,
  presignUpload,
  sendUpload,
  type UploadTicket,
  uploadFile,
} from '../support/uploads';
import { createTestUser, signedIn } from '../support/web-session';
import { docxOf, fileUploadsSuite, ISO_MS, REFUNDS_MD, sha256 } from './file-uploads-suite';

/**
 * File data sources end to end (issue 3; D25, D17, D22): presigned uploads
 * through the local gateway (S3's part on one machine), ingestion by the
 * real ingestion worker off the upload-event queue, and what the files then
 * are to search, query, sync and deletion.
 */
describe('File uploads (D25)', () => {
  const { clock, filesPath, ingest, search, stored, newFileSource, service, key, sourceId, other } =
    fileUploadsSuite();
  /** The upload the presigning, ingestion and deletion tests follow, in order. */
  let refunds: UploadTicket;

  describe('presigning', () => {
    it('answers with a form upload to the gateway, good for 15 minutes, and records the file', async () => {
      const now = clock.now().getTime();
      refunds = await presignUpload(service(), key(), sourceId(), {
        filename: 'refunds.md',
        content_type: 'text/markdown',
        size_bytes: REFUNDS_MD.length,
      });

      expect(refunds).toEqual({
        document_id: expect.stringMatching(/^doc_[0-9a-z]{26}$/),
        upload_url: `${service().url}/_local/uploads`,
        upload_method: 'POST',
        upload_fields: {
          key: fileObjectKey(service().orgId, sourceId(), refunds.document_id),
          policy: expect.any(String),
          signature: expect.any(String),
        },
        expires_at: expect.stringMatching(ISO_MS),
        max_bytes: 50 * 1024 * 1024,
        file: {
          id: refunds.document_id,
          data_source_id: sourceId(),
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
        replaces_existing: false,
      });
      // The test clock runs on in real time: the expiry is 15 minutes after the request, give or take.
      const ttl = Date.parse(refunds.expires_at) - now;
      expect(ttl).toBeGreaterThanOrEqual(FILE_UPLOAD_LIMITS.urlTtlSeconds * 1000);
      expect(ttl).toBeLessThan(FILE_UPLOAD_LIMITS.urlTtlSeconds * 1000 + 5_000);
      const listed = json(await api(service().url, filesPath(), { key: key() }));
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
      const before = json(await api(service().url, filesPath(), { key: key() })).files.length;

      const response = await api(service().url, filesPath(), { method: 'POST', key: key(), body });

      expect(response.status).toBe(400);
      expect(json(response).error.code).toBe('invalid_request');
      expect(JSON.stringify(json(response).error)).toMatch(message);
      expect(json(await api(service().url, filesPath(), { key: key() })).files).toHaveLength(
        before,
      );
    });

    it('refuses uploads to a data source that is not a file source (400)', async () => {
      const website = await createDataSource(service(), key(), websiteSource());

      const response = await api(service().url, filesPath(website.id), {
        method: 'POST',
        key: key(),
        body: { filename: 'a.txt' },
      });

      expect(response.status).toBe(400);
      expect(json(response).error.message).toMatch(/only be uploaded to a file data source/);
    });

    it('answers 404 for a data source that does not exist', async () => {
      const response = await api(service().url, filesPath('ds_00000000000000000000000000'), {
        method: 'POST',
        key: key(),
        body: { filename: 'a.txt' },
      });
      expect(response.status).toBe(404);
    });
  });

  describe('ingestion', () => {
    it('indexes an upload once it arrives: the file, the data source, search and cited answers', async () => {
      // A fresh ticket: each test moves the clock two minutes, and tickets last fifteen.
      refunds = await presignUpload(service(), key(), sourceId(), {
        filename: 'refunds.md',
        content_type: 'text/markdown',
      });
      const sent = await sendUpload(refunds, REFUNDS_MD, { filename: 'refunds.md' });
      expect(sent.status).toBe(204);
      expect(await stored(refunds.document_id)).toEqual(REFUNDS_MD);

      expect(await ingest()).toBe(1);

      const file = await fileRecord(service(), key(), sourceId(), refunds.document_id);
      expect(file).toMatchObject({
        status: 'indexed',
        size_bytes: REFUNDS_MD.length,
        sha256: sha256(REFUNDS_MD),
        error: null,
        indexed_at: expect.stringMatching(ISO_MS),
      });
      expect(file.chunks_indexed).toBeGreaterThan(0);
      const source = json(
        await api(service().url, `/api/v1/data-sources/${sourceId()}`, { key: key() }),
      );
      expect(source).toMatchObject({ status: 'active', chunks_indexed: file.chunks_indexed });

      const chunks = await search('gift cards refunded wombat');
      expect(chunks[0]).toMatchObject({
        document_id: refunds.document_id,
        document_title: 'refunds.md — Refunds',
        document_url: `${service().url}/api/v1/data-sources/${sourceId()}/files/${refunds.document_id}/content`,
        data_source_id: sourceId(),
        heading_path: ['Refunds', 'Exceptions'],
      });
      expect(chunks[0]?.text).toContain('Gift cards are never refunded');

      const agent = await createAgent(service(), key(), {
        name: 'Handbook desk',
        data_source_ids: [sourceId()],
      });
      const answer = await api(service().url, '/api/v1/query', {
        method: 'POST',
        key: key(),
        body: { agent_id: agent.id, query: 'Are gift cards refunded?' },
      });
      expect(answer.status).toBe(200);
      expect(json(answer).sources[0]).toMatchObject({
        document_id: refunds.document_id,
        data_source_id: sourceId(),
        document_title: 'refunds.md — Refunds',
        document_url: `${service().url}/api/v1/data-sources/${sourceId()}/files/${refunds.document_id}/content`,
      });
      expect(json(answer).response).toMatch(/Gift cards are never refunded/);
    });

    it('opens a cited file at its document_url: a redirect to a short-lived download of its bytes', async () => {
      const [chunk] = await search('gift cards refunded wombat');
      const contentPath = `/api/v1/data-sources/${sourceId()}/files/${refunds.document_id}/content`;
      expect(chunk?.document_url).toBe(`${service().url}${contentPath}`);

      const opened = await api(service().url, contentPath, { key: key(), redirect: 'manual' });

      expect(opened.status).toBe(302);
      expect(opened.headers.get('cache-control')).toBe('no-store');
      const location = opened.headers.get('location') ?? '';
      // The download needs no credentials: the address is the authorization, for 5 minutes.
      const download = await fetch(location);
      expect(download.status).toBe(200);
      expect(Buffer.from(await download.arrayBuffer())).toEqual(REFUNDS_MD);
      // Markdown is shown as the text it is: browsers save text/markdown instead of showing it.
      expect(download.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(download.headers.get('content-disposition')).toBe(
        `inline; filename="refunds.md"; filename*=UTF-8''refunds.md`,
      );
      // Shown on the API's own origin: sandboxed, so nothing in an uploaded page runs as the console.
      expect(download.headers.get('content-security-policy')).toContain('sandbox');
      const tampered = new URL(location);
      tampered.searchParams.set('signature', 'x'.repeat(43));
      expect((await fetch(tampered)).status).toBe(403);

      // A console session opens it too (the link a signed-in reader follows), a read-only one included.
      const reader = await signedIn(
        service(),
        await createTestUser(service(), { role: 'readonly' }),
      );
      const byBrowser = await reader.request(contentPath, { redirect: 'manual' });
      expect(byBrowser.status).toBe(302);
      expect((await fetch(byBrowser.headers.get('location') ?? '')).status).toBe(200);

      clock.advance(FILE_UPLOAD_LIMITS.downloadTtlSeconds * 1000);
      expect((await fetch(location)).status).toBe(403);
    });

    it('answers 404 for the content of a file whose upload never came, or that does not exist', async () => {
      const pending = await presignUpload(service(), key(), sourceId(), { filename: 'later.md' });
      for (const documentId of [pending.document_id, 'doc_00000000000000000000000000']) {
        const response = await api(
          service().url,
          `/api/v1/data-sources/${sourceId()}/files/${documentId}/content`,
          { key: key(), redirect: 'manual' },
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
        tickets.push(await uploadFile(service(), key(), sourceId(), name, bytes));

      expect(await ingest()).toBe(files.length);

      for (const [index, [name, , words]] of files.entries()) {
        const ticket = tickets[index] as UploadTicket;
        expect(await fileRecord(service(), key(), sourceId(), ticket.document_id)).toMatchObject({
          filename: name,
          status: 'indexed',
        });
        expect((await search(words))[0]).toMatchObject({ document_id: ticket.document_id });
      }
    });

    it('recognises the same bytes uploaded again, and replaces the document when they change', async () => {
      const before = await fileRecord(service(), key(), sourceId(), refunds.document_id);
      clock.advance(1_000);
      expect((await sendUpload(refunds, REFUNDS_MD)).status).toBe(204);
      await ingest();
      expect(await fileRecord(service(), key(), sourceId(), refunds.document_id)).toEqual(before);

      const changed = Buffer.from(
        '# Refunds\n\nRefunds are now paid within a fortnight, as store credit.\n',
      );
      expect((await sendUpload(refunds, changed)).status).toBe(204);
      await ingest();

      expect(await fileRecord(service(), key(), sourceId(), refunds.document_id)).toMatchObject({
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
        service(),
        key(),
        lonely,
        'scan.pdf',
        Buffer.from('just text, no PDF here'),
      );

      await ingest();

      expect(await fileRecord(service(), key(), lonely, ticket.document_id)).toMatchObject({
        status: 'failed',
        chunks_indexed: 0,
        error: expect.stringMatching(/scan\.pdf/),
      });
      const source = json(
        await api(service().url, `/api/v1/data-sources/${lonely}`, { key: key() }),
      );
      expect(source).toMatchObject({ status: 'failed', chunks_indexed: 0 });
    });

    it('keeps a source active when one of its files fails', async () => {
      const ticket = await uploadFile(
        service(),
        key(),
        sourceId(),
        'broken.docx',
        Buffer.from('not a zip'),
      );

      await ingest();

      expect(await fileRecord(service(), key(), sourceId(), ticket.document_id)).toMatchObject({
        status: 'failed',
      });
      const source = json(
        await api(service().url, `/api/v1/data-sources/${sourceId()}`, { key: key() }),
      );
      expect(source.status).toBe('active');
    });

    it('discards an upload whose data source was deleted in between', async () => {
      const doomed = await newFileSource('Doomed');
      const ticket = await presignUpload(service(), key(), doomed, { filename: 'late.txt' });
      const deleted = await api(service().url, `/api/v1/data-sources/${doomed}`, {
        method: 'DELETE',
        key: key(),
      });
      expect(deleted.status).toBe(204);

      expect((await sendUpload(ticket, Buffer.from('arrives too late'))).status).toBe(204);
      expect(await ingest()).toBe(1);

      expect(await stored(ticket.document_id, doomed)).toBeNull();
    });
  });

  describe('sync, deletion and tenants', () => {
    it('re-indexes a file source from its stored files when synced', async () => {
      const before = await search('kettle warranty two years');

      await requestSync(service(), key(), sourceId());
      await service().runtime.workers.stepSync();

      const status = await syncStatus(service(), key(), sourceId());
      expect(status).toMatchObject({ status: 'active', job_status: 'succeeded' });
      // refunds, five formats; the broken DOCX is skipped and said so.
      expect(status.documents_processed).toBe(6);
      expect(status.error).toMatch(/broken\.docx/);
      expect(await search('kettle warranty two years')).toEqual(before);
    });

    it('deletes a file: its bytes and record at once, its chunks by the queued purge (P45)', async () => {
      const response = await api(service().url, `${filesPath()}/${refunds.document_id}`, {
        method: 'DELETE',
        key: key(),
      });

      expect(response.status).toBe(204);
      // The purge travels on the sync queue, as in the cloud; the worker is stepped by hand here.
      await service().runtime.workers.stepSync();
      expect(
        (await search('refunds fortnight store credit')).map((chunk) => chunk.document_id),
      ).not.toContain(refunds.document_id);
      expect(await stored(refunds.document_id)).toBeNull();
      const again = await api(service().url, `${filesPath()}/${refunds.document_id}`, {
        key: key(),
      });
      expect(again.status).toBe(404);
    });

    it('keeps every file route of one organization out of reach of another (404)', async () => {
      const [file] = json(await api(service().url, filesPath(), { key: key() })).files;
      const attempts: Array<[string, string, unknown]> = [
        ['POST', filesPath(), { filename: 'intruder.txt' }],
        ['GET', filesPath(), undefined],
        ['GET', `${filesPath()}/${file.id}`, undefined],
        ['GET', `${filesPath()}/${file.id}/content`, undefined],
        ['DELETE', `${filesPath()}/${file.id}`, undefined],
      ];
      for (const [method, path, body] of attempts) {
        const response = await api(service().url, path, {
          method,
          key: other().key,
          redirect: 'manual',
          ...(body ? { body } : {}),
        });
        expect({ method, path, status: response.status }).toEqual({ method, path, status: 404 });
      }
      expect(await fileRecord(service(), key(), sourceId(), file.id)).toEqual(file);
    });

    it('deletes the files of a deleted data source', async () => {
      const shortLived = await newFileSource('Short-lived');
      const ticket = await uploadFile(
        service(),
        key(),
        shortLived,
        'memo.txt',
        Buffer.from('A short memo.'),
      );
      await ingest();

      const response = await api(service().url, `/api/v1/data-sources/${shortLived}`, {
        method: 'DELETE',
        key: key(),
      });

      expect(response.status).toBe(204);
      expect(await stored(ticket.document_id, shortLived)).toBeNull();
      expect(await service().runtime.dependencies.files.list(service().orgId, shortLived)).toEqual(
        [],
      );
    });
  });
});
