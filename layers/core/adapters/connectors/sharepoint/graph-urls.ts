/**
 * Microsoft Graph addresses the SharePoint connector builds or is given.
 * Customer-supplied values only ever become path segments of
 * Graph addresses: nothing at the customer's site is fetched.
 */

const trimSlash = (url: string) => url.replace(/\/+$/, '');

/**
 * `GET /sites/{hostname}:/{server-relative-path}` (the root site:
 * `/sites/{hostname}`) for a site's address, e.g.
 * `https://contoso.sharepoint.com/sites/kb` or a OneDrive for Business
 * address `https://contoso-my.sharepoint.com/personal/jane_contoso_com`;
 * `null` when `siteUrl` is not an address.
 */
export function siteLookupUrl(graphBaseUrl: string, siteUrl: string): string | null {
  if (!URL.canParse(siteUrl)) return null;
  const url = new URL(siteUrl);
  const segments = url.pathname
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) => encodeURIComponent(safeDecode(segment)));
  const host = encodeURIComponent(url.hostname);
  const base = `${trimSlash(graphBaseUrl)}/sites/${host}`;
  return segments.length === 0 ? base : `${base}:/${segments.join('/')}`;
}

const safeDecode = (segment: string) => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};

/**
 * A link Graph gave (`@odata.nextLink`, `@odata.deltaLink`, a 410's
 * `Location`) is followed with the bearer token only when it is under the
 * Graph address the service was configured with.
 */
export function isGraphLink(graphBaseUrl: string, link: unknown): link is string {
  if (typeof link !== 'string' || !URL.canParse(link)) return false;
  const base = new URL(trimSlash(graphBaseUrl));
  const url = new URL(link);
  return url.origin === base.origin && url.pathname.startsWith(`${base.pathname}/`);
}

/** Graph's error code (`{"error": {"code": "itemNotFound", "message": …}}`), if the body has one. */
export function graphError(body: unknown): string | null {
  const error = (body as { error?: { code?: unknown } } | null)?.error;
  return typeof error?.code === 'string' ? error.code : null;
}
