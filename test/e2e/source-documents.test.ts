import { createDataSource } from '../support/fixtures';
import { api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { htmlPage, type LoopbackSite, startLoopbackSite } from '../support/loopback-site';
import { indexWebsite } from '../support/sync';
import { createTenant, type TestKey } from '../support/tenants';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';
import { fileRecord, presignUpload, sendUpload, uploadFile } from '../support/uploads';
import { LOCAL_RECEIVERS_ENV } from '../support/webhooks';

const GUIDE_MD = Buffer.from(
  '# Glazing guide\n\nCeladon glazes need a reduction firing.\n\n## Cones\n\nCone 10 is hot.\n',
);
const NOTES_TXT = Buffer.from('Kiln notes: the wombat sat on the kiln shelf all afternoon.\n');

/**
 * A data source's documents over HTTP: uploaded files and crawled pages
 * listed, searched and sorted; several files deleted at once; a file
 * indexed again; a document's chunks previewed; an upload under a name the
 * source already has replacing that file.
 */
describe("A data source's documents", () => {
  const clock = new TestClock();
  let service: TestService;
  let site: LoopbackSite;
  let other: TestKey;
  let key: string;
  let files: string;

  beforeAll(async () => {
    [service, site] = await Promise.all([
      startTestService({ env: { ...LOCAL_RECEIVERS_ENV }, clock }),
      startLoopbackSite(() => ({
        '/robots.txt': 'User-agent: *\nAllow: /\n',
        '/': htmlPage('Pottery home', ['Welcome to the studio.'], ['/firing']),
        '/firing': htmlPage('Firing schedules', ['Bisque first, then glaze at cone 6.']),
      })),
    ]);
    key = service.adminKey;
    other = await createTenant(service, { name: 'Other org' });
    files = (
      await createDataSource(service, key, {
        type: 'file',
        name: 'Studio files',
        sync_frequency: 'manual',
      })
    ).id;
  });
  afterAll(async () => {
    await service.end();
    await site.close();
  });
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  const documentsPath = (source: string, rest = '') =>
    `/api/v1/data-sources/${source}/documents${rest}`;
  const ingest = () => service.runtime.workers.stepIngestion();
  const list = async (source: string, query = '', as = key) => {
    const response = await api(service.url, `${documentsPath(source)}${query}`, { key: as });
    expect({ status: response.status, body: response.body }).toMatchObject({ status: 200 });
    return json(response);
  };

  describe('listing', () => {
    it("lists a file source's uploads in every state, with name, status, chunks and size", async () => {
      const guide = await uploadFile(service, key, files, 'guide.md', GUIDE_MD);
      await ingest();
      const waiting = await presignUpload(service, key, files, { filename: 'later.txt' });

      const body = await list(files);

      expect(body).toMatchObject({ total: 2, limit: 50, offset: 0 });
      expect(body.documents).toEqual(
        expect.arrayContaining([
          {
            id: guide.document_id,
            data_source_id: files,
            origin: 'file',
            name: 'guide.md',
            url: `/api/v1/data-sources/${files}/files/${guide.document_id}/content`,
            status: 'indexed',
            chunks_indexed: expect.any(Number),
            size_bytes: GUIDE_MD.length,
            updated_at: expect.any(String),
            error: null,
          },
          expect.objectContaining({
            id: waiting.document_id,
            status: 'awaiting_upload',
            url: null,
            size_bytes: null,
          }),
        ]),
      );
      const listed = body.documents.find((document: any) => document.id === guide.document_id);
      expect(listed.chunks_indexed).toBeGreaterThan(0);
    });

    it('searches names, filters by status and sorts by name, size or chunks', async () => {
      await uploadFile(service, key, files, 'kiln-notes.txt', NOTES_TXT);
      await ingest();

      const searched = await list(files, '?q=KILN');
      const indexed = await list(files, '?status=indexed&sort=name');
      const bySize = await list(files, '?status=indexed&sort=size&order=asc');
      const byChunks = await list(files, '?sort=chunks');

      expect(searched.documents.map((document: any) => document.name)).toEqual(['kiln-notes.txt']);
      expect(indexed.documents.map((document: any) => document.name)).toEqual([
        'guide.md',
        'kiln-notes.txt',
      ]);
      expect(bySize.documents.map((document: any) => document.name)).toEqual([
        'kiln-notes.txt',
        'guide.md',
      ]);
      // Most chunks first; the file whose upload has not come (0 chunks) last.
      expect(byChunks.documents.at(-1).name).toBe('later.txt');
    });

    it("lists a website's crawled pages, found by title or address", async () => {
      const { source } = await indexWebsite(service, key, site.url('/'), 'Pottery site');

      const body = await list(source.id, '?sort=name');
      const searched = await list(source.id, '?q=%2Ffiring');

      expect(body.total).toBe(2);
      expect(body.documents).toEqual([
        expect.objectContaining({
          origin: 'indexed',
          name: 'Firing schedules',
          url: site.url('/firing'),
          status: 'indexed',
          size_bytes: null,
          updated_at: null,
        }),
        expect.objectContaining({ name: 'Pottery home', url: site.url('/') }),
      ]);
      expect(body.documents[0].chunks_indexed).toBeGreaterThan(0);
      expect(searched.documents.map((document: any) => document.name)).toEqual([
        'Firing schedules',
      ]);
    });

    it.each([
      ['an unknown sort', '?sort=colour'],
      ['an unknown status', '?status=lost'],
      ['an unknown order', '?order=sideways'],
      ['an unknown parameter', '?colour=blue'],
      ['a search over 200 characters', `?q=${'a'.repeat(201)}`],
      ['a limit over 200', '?limit=201'],
    ])('refuses %s with 400', async (_, query) => {
      const response = await api(service.url, `${documentsPath(files)}${query}`, { key });

      expect(response.status).toBe(400);
      expect(json(response).error.code).toBe('invalid_request');
    });

    it("answers 404 for another organization's data source", async () => {
      const response = await api(service.url, documentsPath(files), { key: other.key });

      expect(response.status).toBe(404);
    });
  });

  describe('chunk preview', () => {
    it("shows a document's chunks in reading order, with their headings", async () => {
      const [guide] = (await list(files, '?q=guide')).documents;

      const response = await api(service.url, documentsPath(files, `/${guide.id}/chunks`), {
        key,
      });

      expect(response.status).toBe(200);
      const body = json(response);
      expect(body.document_id).toBe(guide.id);
      expect(body.total).toBe(guide.chunks_indexed);
      expect(body.chunks[0]).toEqual({
        chunk_id: expect.any(String),
        position: 0,
        heading_path: expect.any(Array),
        text: expect.stringContaining('Celadon'),
      });
      expect(body.chunks.map((chunk: any) => chunk.position)).toEqual(
        [...body.chunks.keys()].map((index) => index),
      );
    });

    it('previews a file that has no chunks yet as empty, and an unknown document as 404', async () => {
      const [later] = (await list(files, '?q=later')).documents;

      const empty = await api(service.url, documentsPath(files, `/${later.id}/chunks`), { key });
      const unknown = await api(
        service.url,
        documentsPath(files, '/doc_00000000000000000000000000/chunks'),
        { key },
      );
      const tooMany = await api(
        service.url,
        documentsPath(files, `/${later.id}/chunks?limit=101`),
        {
          key,
        },
      );

      expect(json(empty)).toEqual({ document_id: later.id, total: 0, chunks: [] });
      expect(unknown.status).toBe(404);
      expect(tooMany.status).toBe(400);
    });

    it("never shows another organization's chunks", async () => {
      const [guide] = (await list(files, '?q=guide')).documents;

      const response = await api(service.url, documentsPath(files, `/${guide.id}/chunks`), {
        key: other.key,
      });

      expect(response.status).toBe(404);
    });
  });

  describe('an upload under a name the source already has', () => {
    it('replaces that file: same document, new content, one entry', async () => {
      const [before] = (await list(files, '?q=kiln-notes')).documents;
      const changed = Buffer.from('Kiln notes: the shelf cracked at cone 10; order a new one.\n');

      const ticket = await presignUpload(service, key, files, {
        filename: 'kiln-notes.txt',
        size_bytes: changed.length,
      });
      expect(await sendUpload(ticket, changed, { filename: 'kiln-notes.txt' })).toMatchObject({
        status: 204,
      });
      await ingest();

      expect(ticket.document_id).toBe(before.id);
      expect((ticket as any).replaces_existing).toBe(true);
      const after = await list(files, '?q=kiln-notes');
      expect(after.documents).toHaveLength(1);
      expect(after.documents[0]).toMatchObject({ id: before.id, size_bytes: changed.length });
      const preview = json(
        await api(service.url, documentsPath(files, `/${before.id}/chunks`), { key }),
      );
      expect(preview.chunks.map((chunk: any) => chunk.text).join(' ')).toMatch(/shelf cracked/);
      expect(preview.chunks.map((chunk: any) => chunk.text).join(' ')).not.toMatch(/wombat/);
    });

    it('the same file uploaded twice stays one document', async () => {
      const first = await uploadFile(service, key, files, 'twice.txt', NOTES_TXT);
      await ingest();
      const second = await uploadFile(service, key, files, 'twice.txt', NOTES_TXT);
      await ingest();

      expect(second.document_id).toBe(first.document_id);
      const listed = await list(files, '?q=twice');
      expect(listed.documents).toHaveLength(1);
      expect(listed.documents[0].status).toBe('indexed');
    });

    it('a new name is a new document, not a replacement', async () => {
      const ticket = await presignUpload(service, key, files, { filename: 'new-name.txt' });

      expect((ticket as any).replaces_existing).toBe(false);
    });

    it('refuses a batch that lists one name twice (400), writing nothing', async () => {
      const before = (await list(files)).total;

      const response = await api(service.url, `/api/v1/data-sources/${files}/files`, {
        method: 'POST',
        key,
        body: { files: [{ filename: 'dup.txt' }, { filename: 'dup.txt' }] },
      });

      expect(response.status).toBe(400);
      expect(JSON.stringify(json(response).error)).toMatch(/files\.1\.filename/);
      expect((await list(files)).total).toBe(before);
    });
  });

  describe('indexing one file again', () => {
    it('makes it processing at once, then indexed again by the sync worker', async () => {
      const [guide] = (await list(files, '?q=guide')).documents;

      const response = await api(service.url, documentsPath(files, `/${guide.id}/reindex`), {
        method: 'POST',
        key,
      });

      expect(response.status).toBe(202);
      expect(json(response)).toMatchObject({ id: guide.id, status: 'processing' });
      await service.runtime.workers.stepSync();
      const record = await fileRecord(service, key, files, guide.id);
      expect(record).toMatchObject({ status: 'indexed', chunks_indexed: guide.chunks_indexed });
    });

    it('refuses a file whose upload has not come (400)', async () => {
      const [later] = (await list(files, '?q=later')).documents;

      const waiting = await api(service.url, documentsPath(files, `/${later.id}/reindex`), {
        method: 'POST',
        key,
      });

      expect(waiting.status).toBe(400);
    });
  });

  describe('bulk delete', () => {
    it('deletes the files listed, with their chunks, and reports each', async () => {
      const a = await uploadFile(service, key, files, 'a.txt', Buffer.from('Alpha wombats.\n'));
      const b = await uploadFile(service, key, files, 'b.txt', Buffer.from('Beta wombats.\n'));
      await ingest();

      const response = await api(service.url, documentsPath(files, '/delete'), {
        method: 'POST',
        key,
        body: { document_ids: [a.document_id, b.document_id, 'doc_00000000000000000000000000'] },
      });

      expect(response.status).toBe(200);
      expect(json(response)).toEqual({
        deleted: [a.document_id, b.document_id, 'doc_00000000000000000000000000'],
        failed: [],
      });
      const names = (await list(files)).documents.map((document: any) => document.name);
      expect(names).not.toContain('a.txt');
      expect(names).not.toContain('b.txt');
      await service.runtime.workers.stepSync();
      const preview = json(
        await api(service.url, documentsPath(files, `/${a.document_id}/chunks`), { key }),
      );
      expect(preview).toMatchObject({ error: { code: 'not_found' } });
    });

    it.each([
      ['no ids', { document_ids: [] }],
      ['something that is not a document id', { document_ids: ['ds_x'] }],
      ['over 100 ids', { document_ids: Array(101).fill('doc_00000000000000000000000000') }],
      ['unknown fields', { document_ids: ['doc_00000000000000000000000000'], all: true }],
    ])('refuses %s with 400', async (_, body) => {
      const response = await api(service.url, documentsPath(files, '/delete'), {
        method: 'POST',
        key,
        body,
      });

      expect(response.status).toBe(400);
    });

    it("deletes nothing of another organization's source (404)", async () => {
      const [guide] = (await list(files, '?q=guide')).documents;

      const response = await api(service.url, documentsPath(files, '/delete'), {
        method: 'POST',
        key: other.key,
        body: { document_ids: [guide.id] },
      });

      expect(response.status).toBe(404);
      expect((await list(files, '?q=guide')).total).toBe(1);
    });

    it("refuses a website's pages (400): they come from its sync", async () => {
      const { source } = await indexWebsite(service, key, site.url('/'), 'Pottery again');
      const [page] = (await list(source.id)).documents;

      const response = await api(service.url, documentsPath(source.id, '/delete'), {
        method: 'POST',
        key,
        body: { document_ids: [page.id] },
      });

      expect(response.status).toBe(400);
      expect(json(response).error.message).toMatch(/sync/);
    });
  });
});
