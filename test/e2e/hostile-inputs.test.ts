import type { ServerResponse } from 'node:http';
import { createDataSource } from '../support/fixtures';
import {
  brotliBomb,
  gzipBomb,
  honestZipBombDocx,
  longPdf,
  lyingZipBombDocx,
} from '../support/hostile-files';
import { api } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { htmlPage, type LoopbackSite, routes, startLoopbackSite } from '../support/loopback-site';
import { requestSync, syncStatus } from '../support/sync';
import { createKey } from '../support/tenants';
import { fileRecord, uploadFile } from '../support/uploads';

const MiB = 1024 * 1024;

/**
 * Issue 13 items 2 and 3 over HTTP against the real local runtime: hostile
 * uploads (zip bombs, a lying zip directory, a 2,001-page PDF, a huge CSV
 * cell) end `failed` with the limit they broke (P95–P97) and a
 * `datasource.failed` event, and hostile websites (gzip and brotli bombs, a
 * redirect loop, endless pages, a slow drip) end their sync with the reason
 * (P98), while `GET /api/v1/agents` keeps answering.
 */
describe('Hostile inputs (issue 13)', () => {
  let service: TestService;
  let key: string;
  const sites: LoopbackSite[] = [];
  const drips = new Set<NodeJS.Timeout>();

  beforeAll(async () => {
    service = await startTestService({
      env: {
        SVC_ALLOW_PRIVATE_URLS: 'true',
        // Small crawl budgets so the traps end in seconds; the defaults are 1,024 MiB and 840 s.
        SVC_CRAWL_MAX_MB: '2',
        SVC_CRAWL_TIME_LIMIT_SECONDS: '5',
      },
    });
    key = service.adminKey;
    // The parsing process starts at the first file (seconds under load): started here, so the
    // crawl time limits below measure crawling and indexing only.
    const warmUp = await createDataSource(service, key, {
      type: 'file',
      name: 'warm-up',
      sync_frequency: 'manual',
    });
    await uploadFile(service, key, warmUp.id, 'warm.md', Buffer.from('# Warm\n\nUp.'));
    await service.runtime.workers.stepIngestion();
  });
  // Each test gets a key of its own: the tests create sources, upload and sync back to
  // back, more than one key's Write bucket (15, D16) allows when the machine is quick.
  beforeEach(async () => {
    key = (await createKey(service, service.orgId, { scopes: ['Read', 'Write'] })).key;
  });
  afterAll(async () => {
    for (const drip of drips) clearInterval(drip);
    await Promise.all(sites.map((site) => site.close()));
    await service.end();
  });

  const failureEvents = async (dataSourceId: string) =>
    (await service.runtime.dependencies.outbox.pending(500))
      .flatMap((batch) => batch.events)
      .filter(
        (event) =>
          event.type === 'datasource.failed' &&
          (event.data as { dataSource: { id: string } }).dataSource.id === dataSourceId,
      );

  /** Runs `work` while asking for the agents list; the list's status and whether it came first. */
  async function whileAskingForAgents(work: () => Promise<unknown>) {
    let done = false;
    const running = work().then(() => {
      done = true;
    });
    const listed = await api(service.url, '/api/v1/agents', { key });
    const answeredFirst = !done;
    await running;
    return { status: listed.status, answeredFirst };
  }

  describe('uploads (P95–P97)', () => {
    const files: ReadonlyArray<{
      readonly name: string;
      readonly filename: string;
      readonly bytes: () => Buffer;
      readonly reason: RegExp;
    }> = [
      {
        name: 'a DOCX zip bomb (300 MiB of zeros in 300 KB)',
        filename: 'bomb.docx',
        bytes: () => honestZipBombDocx(300 * MiB),
        reason:
          /^refused "bomb\.docx": it unzips to 314,57\d,\d{3} bytes, more than the 256 MiB allowed$/,
      },
      {
        name: 'a DOCX whose zip directory lies (1 KiB declared, 1 GiB inside)',
        filename: 'liar.docx',
        bytes: () => lyingZipBombDocx(1024 * MiB),
        reason:
          /^could not read "liar\.docx": a damaged package: "word\/document\.xml" unzips to more than the 1,024 bytes it declares$/,
      },
      {
        name: 'a PDF of 2,001 pages',
        filename: 'long.pdf',
        bytes: () => longPdf(2_001),
        reason: /^refused "long\.pdf": it has 2,001 pages, over the 2,000 allowed$/,
      },
      {
        name: 'a CSV with a 2 MiB cell',
        filename: 'cell.csv',
        bytes: () => Buffer.from(`name,notes\nbig,"${'x'.repeat(2 * MiB)}"\n`),
        reason:
          /^refused "cell\.csv": the cell in row 2, column 2 holds more than 1,048,576 characters \(the limit per cell\)$/,
      },
    ];

    it.each(files)(
      'refuses $name with its reason and a datasource.failed event, and the API answers',
      async ({ filename, bytes, reason }) => {
        // Prepare
        const source = (
          await createDataSource(service, key, {
            type: 'file',
            name: filename,
            sync_frequency: 'manual',
          })
        ).id as string;
        const ticket = await uploadFile(service, key, source, filename, bytes());

        // Act
        const api = await whileAskingForAgents(() => service.runtime.workers.stepIngestion());

        // Assess
        expect(api.status).toBe(200);
        expect(await fileRecord(service, key, source, ticket.document_id)).toMatchObject({
          status: 'failed',
          chunks_indexed: 0,
          error: expect.stringMatching(reason),
        });
        const [event] = await failureEvents(source);
        expect(event?.data).toMatchObject({
          dataSource: { id: source, status: 'FAILED' },
          error: expect.stringContaining(filename),
        });
        // The service is still up, and the same API still answers.
        expect((await api_(service, key)).status).toBe(200);
      },
    );
  });

  describe('website syncs (P98)', () => {
    const newSite = async (pages: Record<string, string | ((res: ServerResponse) => void)>) => {
      const site = await startLoopbackSite(() => ({
        '/robots.txt': routes.text('User-agent: *\nAllow: /\n'),
        ...pages,
      }));
      sites.push(site);
      return site;
    };
    const syncSite = async (site: LoopbackSite, name: string) => {
      const source = (
        await createDataSource(service, key, {
          type: 'website',
          name,
          config: { url: site.url('/'), max_pages: 10_000 },
          sync_frequency: 'manual',
        })
      ).id as string;
      await requestSync(service, key, source);
      const answered = await whileAskingForAgents(() => service.runtime.workers.stepSync());
      return { source, answered, status: await syncStatus(service, key, source) };
    };
    const bomb =
      (encoding: 'gzip' | 'br', body: Buffer) =>
      (res: ServerResponse): void => {
        res.writeHead(200, { 'Content-Type': 'text/html', 'Content-Encoding': encoding }).end(body);
      };

    it.each([
      {
        name: 'a gzip bomb (1 GiB in 1 MB)',
        encoding: 'gzip' as const,
        body: () => gzipBomb(1024 * MiB),
      },
      {
        name: 'a brotli bomb (16 MiB in bytes)',
        encoding: 'br' as const,
        body: () => brotliBomb(16 * MiB),
      },
    ])('fails a site that is only $name, with the reason', async ({ encoding, body }) => {
      const site = await newSite({ '/': bomb(encoding, body()) });

      const { source, answered, status } = await syncSite(site, `${encoding} bomb`);

      expect(answered.status).toBe(200);
      expect(status).toMatchObject({
        status: 'failed',
        job_status: 'failed',
        error: expect.stringMatching(
          new RegExp(
            `^Nothing usable was found: 1 document\\(s\\) skipped, e\\.g\\. ${site.url('/')}: its ${encoding} body decompresses more than 100 times`,
          ),
        ),
      });
      expect(await failureEvents(source)).toHaveLength(1);
    });

    it('fails a site whose start page is a redirect loop', async () => {
      const site = await newSite({ '/': routes.redirect('/a'), '/a': routes.redirect('/') });

      const { status } = await syncSite(site, 'loop');

      expect(status).toMatchObject({
        status: 'failed',
        error: expect.stringMatching(/too many redirects|redirect loop/),
      });
    });

    it('ends a sync of endless pages at its byte budget, keeping what it indexed', async () => {
      // Prepare: /page/n (300 KB, nearly all of it a comment, so indexing is quick) links to /page/n+1
      const site = await newSite({});
      const padding = `<!-- ${'padding '.repeat(37_500)} -->`;
      const endless = Object.fromEntries(
        Array.from({ length: 200 }, (_, n) => [
          `/page/${n}`,
          `${htmlPage(`Page ${n}`, [`Orchard note ${n}.`], [`/page/${n + 1}`])}${padding}`,
        ]),
      );
      site.set({ '/': htmlPage('Start', ['Start here.'], ['/page/0']), ...endless });

      // Act
      const { status } = await syncSite(site, 'endless');

      // Assess: D22, active with some pages; the reason in the status
      expect(status).toMatchObject({
        status: 'active',
        job_status: 'succeeded',
        error: expect.stringMatching(
          new RegExp(
            `^stopped after \\d+ document\\(s\\): the crawl read its limit of ${2 * MiB} bytes of responses$`,
          ),
        ),
      });
      expect(status.chunks_indexed).toBeGreaterThan(0);
      expect(site.hits('/page/199')).toBe(0);
    });

    it('ends a sync of a site that drips its pages at the time limit, and the API answers meanwhile', async () => {
      const site = await newSite({
        '/': (res: ServerResponse) => {
          res.writeHead(200, { 'Content-Type': 'text/html' });
          const drip = setInterval(() => {
            if (res.destroyed) clearInterval(drip);
            else res.write('x');
          }, 100);
          drips.add(drip);
        },
      });

      const { source, answered, status } = await syncSite(site, 'drip');

      expect(answered).toEqual({ status: 200, answeredFirst: true });
      expect(status).toMatchObject({
        status: 'failed',
        error:
          'Nothing usable was found: stopped after 0 document(s): the crawl reached its time limit of 5 s',
      });
      expect(await failureEvents(source)).toHaveLength(1);
    });
  });
});

function api_(service: TestService, key: string) {
  return api(service.url, '/api/v1/agents', { key });
}
