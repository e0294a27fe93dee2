import { type ClientRequest, request as httpRequest, type IncomingMessage } from 'node:http';
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

/** A request that passed the policy's checks, ready to go out. */
export interface GuardedRequest {
  readonly url: URL;
  /**
   * Sends it (the body included) over a connection whose every resolved
   * address is checked; `onError` gets connection failures.
   */
  send(
    onResponse: (response: IncomingMessage) => void,
    onError: (error: Error) => void,
    signal?: AbortSignal,
  ): ClientRequest;
}

/**
 * The SSRF guard's checks before anything leaves, shared by both guarded fetches: the
 * policy's schemes, IP literals refused, and a request whose connection
 * resolves through guardedLookup (every address checked), with no redirect
 * followed. A refusal is an OutboundRequestError.
 */
export function guardedRequester(
  policy: OutboundPolicy,
): (input: string, init: RequestInit) => GuardedRequest | OutboundRequestError {
  const lookup = guardedLookup(policy);
  const ca = trustedCertificates(policy);
  return (input, init) => {
    const parsed = parseOutboundUrl(input, policy);
    if (!parsed.ok) return new OutboundRequestError(parsed.reason);
    const { url } = parsed;
    const host = hostOf(url);
    const refusal = checkLiteralHost(host, policy);
    if (refusal) return new OutboundRequestError(refusal.message);
    const body = typeof init.body === 'string' ? init.body : undefined;
    const headers = new Headers(init.headers);
    if (body !== undefined) headers.set('content-length', String(Buffer.byteLength(body)));
    return {
      url,
      send(onResponse, onError, signal) {
        const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
        const outgoing = request(
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
            ...(signal ? { signal } : {}),
          },
          onResponse,
        );
        outgoing.on('error', onError);
        outgoing.end(body);
        return outgoing;
      },
    };
  };
}

/**
 * A `fetch` for customer-supplied addresses: the scheme by the
 * policy, IP literals and every resolved address checked on the connection
 * itself (guardedLookup), no redirects followed (a 3xx is returned as is),
 * and the whole exchange bounded in time and size. Built on node:http(s)
 * because global fetch takes no `lookup`; it returns a standard `Response`
 * so libraries that accept a custom fetch (jose's JWKS) can use it.
 */
export function guardedFetch(policy: OutboundPolicy, options: GuardedFetchOptions) {
  const prepare = guardedRequester(policy);
  return (input: string | URL, init: RequestInit = {}): Promise<Response> => {
    const prepared = prepare(String(input), init);
    if (prepared instanceof OutboundRequestError) return Promise.reject(prepared);
    const { url } = prepared;

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
      const outgoing = prepared.send(onResponse, (error) => fail(describeConnectionError(error)));
    });
  };
}
