import { expectDocumented } from './openapi-contract';
import { parseSetCookie } from './web-session';

interface BrowserCookie {
  readonly value: string;
  readonly path: string;
}

export interface Page {
  readonly url: string;
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * A browser as far as sign-in flows need one: cookies per origin (honouring
 * Path, Max-Age=0 removal), redirects followed one hop at a time (303 turns
 * a POST into a GET), and HTML forms submitted as
 * application/x-www-form-urlencoded. It stops following when `stopAt` says
 * so, to let a test look at (or tamper with) a hop.
 */
export class Browser {
  private readonly cookies = new Map<string, Map<string, BrowserCookie>>();
  readonly history: string[] = [];

  cookie(origin: string, name: string): string | undefined {
    return this.cookies.get(origin)?.get(name)?.value;
  }

  setCookie(origin: string, name: string, value: string, path = '/'): void {
    const jar = this.cookies.get(origin) ?? new Map<string, BrowserCookie>();
    jar.set(name, { value, path });
    this.cookies.set(origin, jar);
  }

  private cookieHeader(url: URL): string | undefined {
    const jar = this.cookies.get(url.origin);
    if (!jar) return undefined;
    const sent = [...jar].filter(([, cookie]) => url.pathname.startsWith(cookie.path));
    return sent.length === 0 ? undefined : sent.map(([name, c]) => `${name}=${c.value}`).join('; ');
  }

  private store(url: URL, headers: Headers): void {
    const jar = this.cookies.get(url.origin) ?? new Map<string, BrowserCookie>();
    for (const header of headers.getSetCookie()) {
      const { name, value, attributes } = parseSetCookie(header);
      const maxAge = attributes['max-age'];
      if (typeof maxAge === 'string' && Number(maxAge) <= 0) jar.delete(name);
      else
        jar.set(name, { value, path: typeof attributes.path === 'string' ? attributes.path : '/' });
    }
    this.cookies.set(url.origin, jar);
  }

  /** One request, no redirect followed. */
  async request(
    url: string,
    init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {},
  ): Promise<Page> {
    const target = new URL(url);
    const headers: Record<string, string> = { ...init.headers };
    const cookie = this.cookieHeader(target);
    if (cookie) headers.cookie = cookie;
    let body: string | undefined;
    if (init.form) {
      body = new URLSearchParams(init.form).toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    const response = await fetch(target, {
      method: init.method ?? 'GET',
      headers,
      redirect: 'manual',
      ...(body !== undefined ? { body } : {}),
    });
    this.store(target, response.headers);
    this.history.push(`${init.method ?? 'GET'} ${target.href} -> ${response.status}`);
    const text = await response.text();
    // The service's own answers are held to docs/openapi.json, as http-client.ts's are.
    expectDocumented({
      method: init.method ?? 'GET',
      path: `${target.pathname}${target.search}`,
      status: response.status,
      headers: response.headers,
      text,
    });
    return { url: target.href, status: response.status, headers: response.headers, text };
  }

  /** Follows redirects from `url` until a page that is not one, or until `stopAt(next URL)`. */
  async navigate(
    url: string,
    options: {
      stopAt?: (next: URL) => boolean;
      method?: string;
      form?: Record<string, string>;
    } = {},
  ): Promise<Page> {
    let page = await this.request(url, options);
    for (let hops = 0; hops < 20 && REDIRECTS.has(page.status); hops += 1) {
      const location = page.headers.get('location');
      if (!location) break;
      const next = new URL(location, page.url);
      if (options.stopAt?.(next)) return page;
      page = await this.request(next.href);
    }
    return page;
  }

  /** Submits the page's first form with its hidden fields plus `fields`, following redirects. */
  submitForm(
    page: Page,
    fields: Record<string, string>,
    options: { stopAt?: (next: URL) => boolean } = {},
  ): Promise<Page> {
    const form = /<form[^>]*action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/i.exec(page.text);
    if (!form) throw new Error(`no form on ${page.url}: ${page.text.slice(0, 300)}`);
    const values: Record<string, string> = {};
    for (const input of (form[2] ?? '').matchAll(/<input[^>]*>/gi)) {
      const name = /name="([^"]*)"/.exec(input[0])?.[1];
      const value = /value="([^"]*)"/.exec(input[0])?.[1];
      if (name && value !== undefined) values[name] = value;
    }
    const action = new URL((form[1] ?? '').replace(/&amp;/g, '&'), page.url).href;
    return this.navigate(action, { ...options, method: 'POST', form: { ...values, ...fields } });
  }
}
