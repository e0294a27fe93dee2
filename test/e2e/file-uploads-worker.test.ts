import { FILE_UPLOAD_LIMITS, fileObjectKey } from '../../layers/core/domain/uploaded-file';
import { ingestUploadedFile } from '../../layers/core/use-cases/ingestion/ingest-uploaded-file';
import { toSqsEvent } from '../../lib/local/background-workers';
import { INGESTION_WORKER } from '../../lib/local/functions';
import {
  fileRecord,
  presignUpload,
  sendUpload,
  type UploadTicket,
  uploadFile,
} from '../support/uploads';
import { fileUploadsSuite } from './file-uploads-suite';

/**
 * File data sources end to end (issue 3; D25, D17, D22): presigned uploads
 * through the local gateway (S3's part on one machine), ingestion by the
 * real ingestion worker off the upload-event queue, and what the files then
 * are to search, query, sync and deletion.
 */
describe('File uploads (D25)', () => {
  const { clock, ingest, search, stored, newFileSource, service, key, sourceId, other } =
    fileUploadsSuite();

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
      const ticket = await presignUpload(service(), key(), source, { filename: 'enc.txt' });
      expect((await sendUpload(ticket, Buffer.from('Encoded keys decode.'))).status).toBe(204);
      // Delivered by hand before the gateway's own event is consumed, with the key as S3 encodes it.
      const encoded = encodeURIComponent(ticket.upload_fields.key ?? '');

      const result = await deliver({
        Records: [{ eventName: 'ObjectCreated:Post', s3: { object: { key: encoded } } }],
      });

      expect(result).toEqual({ batchItemFailures: [] });
      expect(await fileRecord(service(), key(), source, ticket.document_id)).toMatchObject({
        status: 'indexed',
      });
      expect(await ingest()).toBe(1);
    });
  });

  describe('crashes', () => {
    it('finishes an ingestion that died after indexing, without duplicate chunks', async () => {
      const source = await newFileSource('Crashy');
      const ticket = await uploadFile(
        service(),
        key(),
        source,
        'crash.md',
        Buffer.from('# Crash\n\nThe bilby mascot survives every crash test.'),
      );
      const deps = service().runtime.dependencies;
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

      expect(await fileRecord(service(), key(), source, ticket.document_id)).toMatchObject({
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
        service(),
        key(),
        source,
        'race.md',
        Buffer.from('# Race\n\nThe numbat outran the deletion.'),
      );
      const deps = service().runtime.dependencies;
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
      ticket = await presignUpload(service(), key(), sourceId(), { filename: 'guarded.txt' });
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
      const otherKey = fileObjectKey(other().orgId, sourceId(), ticket.document_id);
      const fields = { ...ticket.upload_fields, key: otherKey };
      const sent = await sendUpload(ticket, bytes, { fields });
      expect(sent.status).toBe(400);
      expect(await service().runtime.dependencies.fileStorage.read(otherKey)).toBeNull();
      await refusedAndNothingKept(sent, 400, /key(), policy or signature/);
    });

    it('refuses a form without its fields or without a file (400)', async () => {
      await refusedAndNothingKept(
        await sendUpload(ticket, bytes, { fields: {} }),
        400,
        /key(), policy or signature/,
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
});
