import { createAgent } from '../support/fixtures';
import { api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { type LoopbackSite, routes, startLoopbackSite } from '../support/loopback-site';
import { indexWebsite } from '../support/sync';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';

const QUESTION = 'How long do refunds take?';
/** Says neither "refund" nor "take": only its headings say what it answers (P125, P126). */
const REFUND_ANSWER =
  'We send the money back to your card within 5 business days of receiving the returned item.';
/** In every article's content, not marked up as chrome: boilerplate indexed once (P124). */
const HELPFUL = 'Was this article helpful? Our support team answers every message within a day.';
const FOOTER = 'Acme Incorporated, registered in Springfield, all rights reserved since 1999.';

/**
 * A help site as sites are built: a masthead and a sidebar of links without
 * `<nav>`, a footer that is a `div`, the same "was this helpful" paragraph in
 * every article, and a home page whose body is a list of links.
 */
function acmeHelp(): Record<string, ReturnType<typeof routes.html>> {
  const layout = (title: string, content: string) =>
    routes.html(`<!doctype html><html><head><title>${title} | Acme Help</title></head><body>
<div id="masthead"><a href="/">Acme Help</a> <a href="/refunds">Refunds</a> <a href="/shipping">Shipping</a> <a href="/security">Security</a> <a href="/login">Sign in</a></div>
<div class="layout">
  <div class="sidebar"><h3>Popular</h3><ul><li><a href="/refunds">Refund timelines</a></li><li><a href="/shipping">Shipping zones</a></li><li><a href="/security">Account security</a></li></ul></div>
  <div class="content">${content}</div>
</div>
<div class="site-footer"><p>${FOOTER}</p><p><a href="/privacy">Privacy</a> · <a href="/terms">Terms</a></p></div>
</body></html>`);
  return {
    '/robots.txt': routes.text('User-agent: *\nAllow: /\n'),
    '/': layout(
      'Home',
      `<h1>Acme Help Center</h1><ul><li><a href="/refunds">Refunds</a></li><li><a href="/shipping">Shipping</a></li><li><a href="/security">Security</a></li></ul>`,
    ),
    '/refunds': layout(
      'Refunds',
      `<h1>Refunds</h1><h2>${QUESTION}</h2><p>${REFUND_ANSWER}</p>
<h2>Can I return a gift?</h2><p>Gifts can be returned for store credit with the gift receipt.</p><p>${HELPFUL}</p>`,
    ),
    '/shipping': layout(
      'Shipping',
      `<h1>Shipping</h1><h2>Delivery times</h2><p>Parcels arrive within three days inside the country and within ten days abroad.</p><p>${HELPFUL}</p>`,
    ),
    '/security': layout(
      'Security',
      `<h1>Security</h1><h2>Two-factor sign-in</h2><p>Turn on two-factor sign-in from the account page to protect your orders.</p><p>${HELPFUL}</p>`,
    ),
  };
}

/**
 * Issue 10 item 2, content over chrome (P122–P125): a crawled site's
 * navigation, sidebar and footer never reach the index, its link-list home
 * page is followed but not indexed, boilerplate is indexed once, chunks carry
 * their headings, and the page that answers ranks first, through the HTTP API.
 */
describe('Content over chrome (issue 10 item 2)', () => {
  const clock = new TestClock();
  let service: TestService;
  let site: LoopbackSite;
  let sourceId: string;
  let status: Record<string, any>;

  beforeAll(async () => {
    [service, site] = await Promise.all([
      startTestService({ env: { SVC_ALLOW_PRIVATE_URLS: 'true' }, clock }),
      startLoopbackSite(acmeHelp),
    ]);
    const indexed = await indexWebsite(service, service.adminKey, site.url('/'));
    sourceId = indexed.source.id;
    status = indexed.status;
  });
  afterAll(async () => {
    await service.end();
    await site.close();
  });
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  const search = async (query: string) => {
    const response = await api(service.url, '/api/v1/semantic-search', {
      method: 'POST',
      key: service.adminKey,
      body: { query, org_id: service.orgId, data_source_ids: [sourceId], top_k: 100 },
    });
    expect(response.status).toBe(200);
    return json(response).chunks as Array<Record<string, any>>;
  };
  /** Every chunk of the source (the offline embedder gives every chunk some similarity). */
  const everyChunk = () => search('acme refunds shipping security help account delivery');

  it('follows the home page, indexes the pages it links to, and reports the home page as a link index (P123)', async () => {
    expect(site.hits('/')).toBe(1);
    for (const path of ['/refunds', '/shipping', '/security']) expect(site.hits(path)).toBe(1);
    expect(status).toMatchObject({ documents_processed: 3 });
    // Skipped like any other page, with its reason: visible in the sync's status.
    expect(status.error).toContain(`${site.url('/')}: mostly links`);

    const urls = new Set((await everyChunk()).map((chunk) => chunk.document_url));
    expect([...urls].sort()).toEqual(
      ['/refunds', '/security', '/shipping'].map((path) => site.url(path)),
    );
  });

  it('ranks the page that answers first in semantic-search, v1 and legacy, and never returns the home page', async () => {
    const legacy = await api(service.url, '/api/semantic-search', {
      method: 'POST',
      key: service.adminKey,
      body: { query: QUESTION, orgId: service.orgId, dataSourceIds: [sourceId], topK: 100 },
    });
    expect(legacy.status).toBe(200);
    for (const chunks of [await search(QUESTION), json(legacy).chunks]) {
      expect(chunks[0]).toMatchObject({
        document_url: site.url('/refunds'),
        heading_path: ['Refunds', QUESTION],
        text: REFUND_ANSWER,
      });
      expect(chunks.map((chunk: Record<string, any>) => chunk.document_url)).not.toContain(
        site.url('/'),
      );
    }
  });

  it("answers an agent's question from the refund page, citing it first and never the home page", async () => {
    const agent = await createAgent(service, service.adminKey, {
      name: 'Help desk',
      data_source_ids: [sourceId],
    });

    const response = await api(service.url, '/api/v1/query', {
      method: 'POST',
      key: service.adminKey,
      body: { agent_id: agent.id, query: QUESTION },
    });

    expect(response.status).toBe(200);
    const body = json(response);
    expect(body.response).toContain('5 business days');
    expect(body.sources[0]).toMatchObject({ document_url: site.url('/refunds') });
    const cited = (body.sources as Array<Record<string, any>>).map((source) => source.document_url);
    expect(cited).not.toContain(site.url('/'));
  });

  it('keeps the masthead, sidebar and footer out of every chunk (P122)', async () => {
    const texts = (await everyChunk()).map((chunk) => chunk.text as string);

    expect(texts.length).toBeGreaterThan(0);
    for (const text of texts) {
      expect(text).not.toContain('Sign in');
      expect(text).not.toContain('Refund timelines');
      expect(text).not.toContain('Popular');
      expect(text).not.toContain('rights reserved');
      expect(text).not.toContain('Privacy');
    }
  });

  it('indexes the paragraph every article repeats once (P124)', async () => {
    const holding = (await everyChunk()).filter((chunk) => chunk.text.includes(HELPFUL));

    expect(holding).toHaveLength(1);
  });

  it('gives every chunk its heading path', async () => {
    const chunks = await everyChunk();

    expect(chunks.map((chunk) => chunk.heading_path[0]).sort()).toEqual(
      expect.arrayContaining(['Refunds', 'Security', 'Shipping']),
    );
    for (const chunk of chunks) expect(chunk.heading_path.length).toBeGreaterThanOrEqual(2);
  });
});
