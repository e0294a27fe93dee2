/**
 * A website served by the tests on 127.0.0.1 (port 0) for the crawler to
 * sync, end to end: pages can be changed, removed or held between syncs, and
 * every request path is recorded, so a test can tell what the crawler asked
 * for (a path robots.txt disallows must never be requested).
 */
import type { ServerResponse } from 'node:http';
import { type LocalReceiver, startHttpReceiver } from '../integration/net/local-receivers';

/** How the site answers one path. */
export type SiteRoute = (res: ServerResponse) => void;

/** An HTML page: a title, paragraphs (one `<p>` each, under the title's `<h1>`) and links. */
export function htmlPage(
  title: string,
  paragraphs: readonly string[],
  links: readonly string[] = [],
): string {
  return `<!doctype html><html><head><title>${title}</title></head><body>
<main><h1>${title}</h1>
${paragraphs.map((text) => `<p>${text}</p>`).join('\n')}
<ul>${links.map((href) => `<li><a href="${href}">${href}</a></li>`).join('')}</ul>
</main></body></html>`;
}

export const routes = {
  html:
    (body: string): SiteRoute =>
    (res) =>
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(body),
  text:
    (body: string, contentType = 'text/plain; charset=utf-8'): SiteRoute =>
    (res) =>
      res.writeHead(200, { 'Content-Type': contentType }).end(body),
  bytes:
    (body: Buffer, contentType: string): SiteRoute =>
    (res) =>
      res.writeHead(200, { 'Content-Type': contentType, 'Content-Length': body.length }).end(body),
  redirect:
    (location: string, status = 301): SiteRoute =>
    (res) =>
      res.writeHead(status, { Location: location }).end(),
  status:
    (code: number): SiteRoute =>
    (res) =>
      res.writeHead(code, { 'Content-Type': 'text/plain' }).end(`status ${code}`),
} as const;

export interface LoopbackSite {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  url(path?: string): string;
  /** Adds or replaces pages; a string is an HTML page. */
  set(pages: Record<string, SiteRoute | string>): void;
  /** The path answers 404 from now on. */
  remove(path: string): void;
  /** Request paths (with query), in arrival order. */
  requested(): string[];
  /** How many times `path` was requested. */
  hits(path: string): number;
  /** Requests for `path` wait until the returned function is called. */
  hold(path: string): () => void;
  close(): Promise<void>;
}

/** Starts a site; paths not set answer 404. */
export async function startLoopbackSite(
  pages: (origin: string) => Record<string, SiteRoute | string> = () => ({}),
): Promise<LoopbackSite> {
  const table = new Map<string, SiteRoute>();
  const held = new Map<string, { gate: Promise<void>; release: () => void }>();
  const set = (entries: Record<string, SiteRoute | string>) => {
    for (const [path, route] of Object.entries(entries)) {
      table.set(path, typeof route === 'string' ? routes.html(route) : route);
    }
  };
  const receiver: LocalReceiver = await startHttpReceiver((request, res) => {
    const serve = () => (table.get(request.url) ?? routes.status(404))(res);
    const hold = held.get(request.url);
    if (hold) void hold.gate.then(serve);
    else serve();
  });
  const origin = `http://127.0.0.1:${receiver.port}`;
  set(pages(origin));
  const requested = () => receiver.received.map((request) => request.url);
  return {
    origin,
    url: (path = '/') => `${origin}${path}`,
    set,
    remove: (path) => {
      table.delete(path);
    },
    requested,
    hits: (path) => requested().filter((url) => url === path).length,
    hold: (path) => {
      let release = () => {};
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      held.set(path, { gate, release });
      return () => {
        held.delete(path);
        release();
      };
    },
    close: () => {
      for (const { release } of held.values()) release();
      held.clear();
      return receiver.close();
    },
  };
}

/** A sitemap listing `paths` of `origin`. */
export function sitemapXml(origin: string, paths: readonly string[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${paths
    .map((path) => `<url><loc>${origin}${path}</loc></url>`)
    .join('')}</urlset>`;
}

/**
 * A small help center whose pages the query and search tests ask about:
 * returns, shipping and warranty, each with words of its own.
 */
export function helpCenterPages(): Record<string, string> {
  return {
    '/robots.txt': 'User-agent: *\nAllow: /\n',
    '/': htmlPage(
      'Acme Help Center',
      ['Find answers about returns, shipping and the warranty of Acme widgets.'],
      ['/returns', '/shipping', '/warranty'],
    ),
    '/returns': htmlPage('Returns policy', [
      'You can return a widget within 30 days of delivery for a full refund.',
      'Gift cards cannot be refunded or exchanged for cash.',
    ]),
    '/shipping': htmlPage('Shipping', [
      'Standard shipping takes five business days within the country.',
      'Express shipping arrives the next business day for an extra fee.',
    ]),
    '/warranty': htmlPage('Warranty', [
      'Every Acme widget carries a two year warranty against manufacturing defects.',
      'The warranty does not cover damage caused by dropping the widget.',
    ]),
  };
}
