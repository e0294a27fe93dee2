import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { describeConnectionError } from './connection-error';
import { type OutboundPolicy, trustedCertificates } from './outbound-policy';
import { checkLiteralHost, guardedLookup, hostOf, parseOutboundUrl } from './url-guard';

export interface GuardedFetchOptions {
  /** One deadline for DNS, connect, TLS, headers and body. */
  readonly timeoutMs: number;
  /** The most body bytes read; more is a failure. */
  readonly maxBytes: number;
}

/** A refused or failed outbound request, with a reason safe to log (no response content). */
export class OutboundRequestError extends Error {
  override readonly name = 'OutboundRequestError';
}

/**
 * A `fetch` for customer-supplied addresses (D35): the scheme by the
 * policy, IP literals and every resolved address checked on the connection
 * itself (guardedLookup), no redirects followed (a 3xx is returned as is),
 * and the whole exchange bounded in time and size. Built on node:http(s)
 * because global fetch takes no `lookup`; it returns a standard `Response`
 * so libraries that accept a custom fetch (jose's JWKS) can use it.
 */
export function guardedFetch(policy: OutboundPolicy, options: GuardedFetchOptions) {
  const lookup = guardedLookup(policy);
  const ca = trustedCertificates(policy);
  return (input: string | URL, init: RequestInit = {}): Promise<Response> => {
    const parsed = parseOutboundUrl(String(input), policy);
    if (!parsed.ok) return Promise.reject(new OutboundRequestError(parsed.reason));
    const { url } = parsed;
    const host = hostOf(url);
    const refusal = checkLiteralHost(host, policy);
    if (refusal) return Promise.reject(new OutboundRequestError(refusal.message));
    const body = typeof init.body === 'string' ? init.body : undefined;
    const headers = new Headers(init.headers);
    if (body !== undefined) headers.set('content-length', String(Buffer.byteLength(body)));

    return new Promise<Response>((resolve, reject) => {
      let settled = false;
      const fail = (message: string) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        outgoing.destroy();
        reject(new OutboundRequestError(message));
      };
      const timer = setTimeout(
        () => fail(`no complete response from ${url.host} within ${options.timeoutMs} ms`),
        options.timeoutMs,
      );
      const onResponse = (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > options.maxBytes) return fail(`response from ${url.host} is too large`);
          chunks.push(chunk);
        });
        response.on('error', (error) => fail(describeConnectionError(error)));
        response.on('end', () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            if (typeof value === 'string') responseHeaders.set(name, value);
          }
          const status = response.statusCode ?? 502;
          const nullBody = status === 204 || status === 304;
          resolve(
            new Response(nullBody ? null : Buffer.concat(chunks), {
              status,
              headers: responseHeaders,
            }),
          );
        });
      };
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
      const outgoing = send(
        {
          method: init.method ?? 'GET',
          protocol: url.protocol,
          host,
          port: url.port === '' ? undefined : Number(url.port),
          path: `${url.pathname}${url.search}`,
          headers: Object.fromEntries(headers),
          lookup,
          ca,
          servername: isIP(host) === 0 ? host : undefined,
        },
        onResponse,
      );
      outgoing.on('error', (error) => fail(describeConnectionError(error)));
      outgoing.end(body);
    });
  };
}
