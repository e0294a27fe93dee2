/**
 * A test collection put behind the public HTTP API as a user would (issue
 * 10): each document served as one page of a loopback website (its title in
 * `<title>`, its paragraphs in `<p>`s, every page listed in a sitemap),
 * crawled by a `website` data source of a new organization on the real local
 * runtime (`startTestService`: dynalite, gateway, workers). Shared by the
 * citation eval and the retrieval eval.
 *
 * Keys are issued as the admin tooling issues them (D11); callers rotate over
 * several Execute keys so the scope limit (100/min, burst 120 per key) is not
 * what an eval measures.
 */
import { api, json } from '../support/http-client';
import type { TestService } from '../support/local-service';
import { type LoopbackSite, sitemapXml, startLoopbackSite } from '../support/loopback-site';
import { createKey, createTenant, type TestKey } from '../support/tenants';

export interface EvalDocument {
  readonly id: string;
  readonly title: string;
  readonly paragraphs: readonly string[];
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function page(document: EvalDocument): string {
  return [
    `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(document.title)}</title></head>`,
    '<body><main>',
    ...document.paragraphs.map((paragraph) => `<p>${escapeHtml(paragraph)}</p>`),
    '</main></body></html>',
  ].join('\n');
}

const pathOf = (id: string) => `/doc/${encodeURIComponent(id)}`;

/** One authenticated call; anything but 2xx throws with the status and the body's start. */
export async function call(
  service: TestService,
  key: string,
  path: string,
  method: string,
  body?: unknown,
): Promise<Record<string, any>> {
  for (let attempt = 1; ; attempt += 1) {
    const response = await api(service.url, path, {
      method,
      key,
      ...(body === undefined ? {} : { body }),
    });
    // As a client should: a rate-limited request waits what Retry-After says, then goes again.
    const retryAfter = Number(response.headers.get('retry-after'));
    if (response.status === 429 && attempt < 20 && Number.isFinite(retryAfter)) {
      await new Promise((resolve) => setTimeout(resolve, Math.max(0.1, retryAfter) * 1000));
      continue;
    }
    if (response.status >= 300) {
      throw new Error(
        `${method} ${path}: ${response.status} ${JSON.stringify(response.body).slice(0, 300)}`,
      );
    }
    return json(response);
  }
}

export interface CrawledCollection {
  readonly site: LoopbackSite;
  readonly tenant: TestKey;
  readonly dataSourceId: string;
  /** A page's URL (a chunk's `document_url`) → the document served there. */
  readonly byUrl: ReadonlyMap<string, EvalDocument>;
  readonly chunksIndexed: number;
  readonly syncSeconds: number;
}

/** Serves `documents` on a loopback site and syncs them into a new organization's website data source. */
export async function crawlCollection(
  service: TestService,
  documents: readonly EvalDocument[],
  name: string,
  log: (line: string) => void,
): Promise<CrawledCollection> {
  const paths = documents.map((document) => pathOf(document.id));
  const site = await startLoopbackSite((origin) => ({
    '/robots.txt': `User-agent: *\nAllow: /\nSitemap: ${origin}/sitemap.xml\n`,
    '/sitemap.xml': (res) => {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(sitemapXml(origin, paths));
    },
    '/': '<!doctype html><html><head><title>Collection</title></head><body></body></html>',
    ...Object.fromEntries(documents.map((document) => [pathOf(document.id), page(document)])),
  }));
  try {
    const tenant = await createTenant(service, { name });
    const syncStarted = performance.now();
    const source = await call(service, tenant.key, '/api/v1/data-sources', 'POST', {
      type: 'website',
      name: 'Eval collection',
      config: { url: site.url('/'), max_pages: Math.min(10_000, documents.length + 1) },
      sync_frequency: 'manual',
    });
    await call(service, tenant.key, `/api/v1/data-sources/${source.id}/sync`, 'POST');
    await service.runtime.workers.stepSync();
    const status = await call(
      service,
      tenant.key,
      `/api/v1/data-sources/${source.id}/status`,
      'GET',
    );
    if (status.status !== 'active') throw new Error(`sync ended ${JSON.stringify(status)}`);
    const syncSeconds = (performance.now() - syncStarted) / 1000;
    log(
      `crawled ${documents.length} pages, ${status.chunks_indexed} chunks in ${syncSeconds.toFixed(1)} s`,
    );
    return {
      site,
      tenant,
      dataSourceId: source.id,
      byUrl: new Map(documents.map((document) => [site.url(pathOf(document.id)), document])),
      chunksIndexed: status.chunks_indexed,
      syncSeconds,
    };
  } catch (error) {
    await site.close();
    throw error;
  }
}

/** Enough Execute keys of `tenant`'s organization for `requests` calls in well under their per-key limit. */
export async function executeKeys(
  service: TestService,
  tenant: TestKey,
  requests: number,
): Promise<string[]> {
  const keys = await Promise.all(
    Array.from({ length: Math.ceil(requests / 100) + 1 }, () =>
      createKey(service, tenant.orgId, { scopes: ['Execute'] }),
    ),
  );
  return keys.map((key) => key.key);
}
