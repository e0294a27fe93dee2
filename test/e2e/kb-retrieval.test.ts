import { kbDataSourceIdFor } from '../../layers/core/domain/kb-article';
import { documentIdFor } from '../../layers/core/use-cases/ingestion/run-sync-job';
import { createAgent } from '../support/fixtures';
import { api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { requestSync, syncStatus } from '../support/sync';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';

const ARTICLE = [
  '# Warranty',
  '',
  'Every kettle carries a warranty of two years from delivery.',
  '',
  '## Claims',
  '',
  'Claims go through the wombat desk, which answers within five days.',
].join('\n');

/**
 * The built-in `kb` data source (issue 11 item 2; D32, P115, P119, P120):
 * published articles are retrievable knowledge an agent answers from, cited
 * at their version; drafts never are; a new version replaces the old
 * chunks; unpublishing and deleting remove them. Indexing runs in the real
 * sync worker off the sync queue, stepped by hand.
 */
describe('Answers from the knowledge base (D32)', () => {
  const clock = new TestClock();
  let service: TestService;
  let key: string;
  let kbSourceId: string;
  let agentId: string;

  const send = (path: string, options: { method?: string; body?: unknown } = {}) =>
    api(service.url, path, { key, ...options });
  const ask = async (query: string) => {
    const response = await send('/api/v1/query', {
      method: 'POST',
      body: { agent_id: agentId, query },
    });
    expect(response.status).toBe(200);
    return json(response);
  };
  const search = async (query: string) => {
    const response = await send('/api/v1/semantic-search', {
      method: 'POST',
      body: { query, org_id: service.orgId, data_source_ids: [kbSourceId], top_k: 100 },
    });
    expect(response.status).toBe(200);
    return json(response).chunks as Array<Record<string, any>>;
  };
  const indexedDocuments = () =>
    service.runtime.dependencies.retrieval.documentHashes(service.orgId, kbSourceId);

  beforeAll(async () => {
    service = await startTestService({ clock });
    key = service.adminKey;
    kbSourceId = json(await send('/api/v1/kb')).data_source_id;
    agentId = (
      await createAgent(service, key, { name: 'Help desk', data_source_ids: [kbSourceId] })
    ).id;
  });
  afterAll(() => service.end());
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  it('lets an agent list the kb data source (P7: it is the organization’s own)', () => {
    expect(kbSourceId).toBe(kbDataSourceIdFor(service.orgId));
  });

  it('answers from a published article, citing the article at its version (P120)', async () => {
    const article = json(
      await send('/api/v1/kb', {
        method: 'POST',
        body: { title: 'Kettle warranty', content: ARTICLE, status: 'published' },
      }),
    );
    await service.runtime.workers.stepSync();

    const answer = await ask('How long is the kettle warranty?');
    expect(answer.response).toMatch(/two years/);
    expect(answer.sources[0]).toMatchObject({
      document_title: 'Kettle warranty',
      document_url: `/api/v1/kb/${article.id}/versions/1`,
    });
    // Chunked by headings like every Markdown document.
    const chunks = await search('wombat desk claims');
    expect(chunks[0]).toMatchObject({
      heading_path: ['Warranty', 'Claims'],
      data_source_id: kbSourceId,
    });
    const status = await syncStatus(service, key, kbSourceId);
    expect(status).toMatchObject({ status: 'active' });
    expect(status.chunks_indexed).toBeGreaterThan(0);
    // The citation's address reads the version that was indexed.
    expect(json(await send(answer.sources[0].document_url))).toMatchObject({
      version: 1,
      content: ARTICLE,
    });
  });

  it('never retrieves a draft, whatever its versions say', async () => {
    const draft = json(
      await send('/api/v1/kb', {
        method: 'POST',
        body: { title: 'Secret plan', content: 'The zeppelin launches at dawn.' },
      }),
    );
    await service.runtime.workers.stepSync();
    expect(JSON.stringify(await search('zeppelin launches dawn'))).not.toMatch(/zeppelin/);

    await send(`/api/v1/kb/${draft.id}`, {
      method: 'PUT',
      body: { content: 'The zeppelin launches at noon.' },
    });
    await service.runtime.workers.stepSync();
    expect(JSON.stringify(await search('zeppelin launches noon'))).not.toMatch(/zeppelin/);
    expect((await indexedDocuments()).has(documentIdFor(kbSourceId, draft.id))).toBe(false);
  });

  it('replaces the old chunks when a new version is published, and cites the new version', async () => {
    const article = json(
      await send('/api/v1/kb', {
        method: 'POST',
        body: {
          title: 'Opening hours',
          content: 'The shop opens at nine on weekdays.',
          status: 'published',
        },
      }),
    );
    await service.runtime.workers.stepSync();
    expect(JSON.stringify(await search('shop opens nine'))).toMatch(/opens at nine/);

    await send(`/api/v1/kb/${article.id}`, {
      method: 'PUT',
      body: { content: 'The shop opens at ten on weekdays.' },
    });
    await service.runtime.workers.stepSync();

    const found = JSON.stringify(await search('shop opens weekdays'));
    expect(found).toMatch(/opens at ten/);
    expect(found).not.toMatch(/opens at nine/);
    const answer = await ask('When does the shop open on weekdays?');
    expect(answer.sources[0]).toMatchObject({
      document_url: `/api/v1/kb/${article.id}/versions/2`,
    });
  });

  it('removes an article from answers when it is unpublished, and brings it back when republished', async () => {
    const article = json(
      await send('/api/v1/kb', {
        method: 'POST',
        body: {
          title: 'Parking',
          content: 'Visitors park behind the aardvark statue.',
          status: 'published',
        },
      }),
    );
    await service.runtime.workers.stepSync();
    expect(JSON.stringify(await search('visitors park aardvark'))).toMatch(/aardvark/);

    await send(`/api/v1/kb/${article.id}`, { method: 'PUT', body: { status: 'draft' } });
    await service.runtime.workers.stepSync();
    expect(JSON.stringify(await search('visitors park aardvark'))).not.toMatch(/aardvark/);
    const answer = await ask('Where do visitors park?');
    expect(JSON.stringify(answer.sources)).not.toMatch(/aardvark/);

    await send(`/api/v1/kb/${article.id}`, { method: 'PUT', body: { status: 'published' } });
    await service.runtime.workers.stepSync();
    const chunks = await search('visitors park aardvark');
    expect(chunks[0]).toMatchObject({ document_url: `/api/v1/kb/${article.id}/versions/3` });
  });

  it('removes a deleted article from answers', async () => {
    const article = json(
      await send('/api/v1/kb', {
        method: 'POST',
        body: {
          title: 'Lost property',
          content: 'Lost umbrellas wait at the platypus counter.',
          status: 'published',
        },
      }),
    );
    await service.runtime.workers.stepSync();
    expect(JSON.stringify(await search('lost umbrellas platypus'))).toMatch(/platypus/);
    const before = (await syncStatus(service, key, kbSourceId)).chunks_indexed;

    expect((await send(`/api/v1/kb/${article.id}`, { method: 'DELETE' })).status).toBe(204);
    await service.runtime.workers.stepSync();

    expect(JSON.stringify(await search('lost umbrellas platypus'))).not.toMatch(/platypus/);
    expect((await syncStatus(service, key, kbSourceId)).chunks_indexed).toBeLessThan(before);
  });

  it('indexes in whatever order the messages arrive: the article as it is when the worker reads it (P119)', async () => {
    const article = json(
      await send('/api/v1/kb', {
        method: 'POST',
        body: { title: 'Ferry', content: 'The ferry leaves at six.', status: 'published' },
      }),
    );
    await send(`/api/v1/kb/${article.id}`, {
      method: 'PUT',
      body: { content: 'The ferry leaves at seven.' },
    });
    await send(`/api/v1/kb/${article.id}`, { method: 'PUT', body: { status: 'draft' } });
    await send(`/api/v1/kb/${article.id}`, {
      method: 'PUT',
      body: { content: 'The ferry leaves at eight.', status: 'published' },
    });
    await service.runtime.workers.stepSync();

    const found = JSON.stringify(await search('ferry leaves'));
    expect(found).toMatch(/leaves at eight/);
    expect(found).not.toMatch(/at six|at seven/);
  });

  it('syncs like any data source: a sync re-reads the published articles only (D22, D24)', async () => {
    const published = (await indexedDocuments()).size;
    const sync = await requestSync(service, key, kbSourceId);
    expect(sync.job.status).toBe('queued');
    await service.runtime.workers.stepSync();

    const status = await syncStatus(service, key, kbSourceId);
    expect(status).toMatchObject({
      status: 'active',
      job_status: 'succeeded',
      documents_processed: published,
      progress_pct: 100,
    });
    expect((await indexedDocuments()).size).toBe(published);
    expect(JSON.stringify(await search('zeppelin'))).not.toMatch(/zeppelin/);
  });

  it('stores datasource.created once and datasource.processed for each publication, like other sources (D27, P119)', async () => {
    const batches = await service.runtime.dependencies.outbox.pending(1_000);
    const events = batches
      .filter((batch) => batch.orgId === service.orgId)
      .flatMap((batch) => batch.events)
      .filter((event) => {
        const data = event.data as { id?: string; dataSource?: { id?: string } };
        return data.id === kbSourceId || data.dataSource?.id === kbSourceId;
      });

    expect(events.filter((event) => event.type === 'datasource.created')).toHaveLength(1);
    const processed = events.filter((event) => event.type === 'datasource.processed');
    expect(processed.length).toBeGreaterThanOrEqual(5);
    expect(processed[0]?.data).toMatchObject({
      dataSource: { id: kbSourceId, name: 'Knowledge base', type: 'KB', status: 'COMPLETED' },
    });
    expect(events.filter((event) => event.type === 'datasource.failed')).toEqual([]);
  });
});
