import {
  type ClientRequest,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { BrotliDecompress, Gunzip, Inflate } from 'node:zlib';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { describeConnectionError } from '../net/connection-error';
import { type OutboundPolicy, trustedCertificates } from '../net/outbound-policy';
import {
  AddressNotAllowedError,
  checkLiteralHost,
  guardedLookup,
  hostOf,
  parseOutboundUrl,
} from '../net/url-guard';

/** One GET, without following redirects (the crawler re-checks every hop itself). */
export interface PageRequest {
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  /** One deadline for DNS, connect, TLS, headers and body. */
  readonly timeoutMs: number;
  /** The most body bytes read, after decompression; past it the request is abandoned. */
  readonly maxBytes: number;
  /**
   * The most decoded bytes per compressed byte of a `gzip`, `deflate` or `br`
   * body once {@link RATIO_CHECK_AFTER_BYTES} are decoded; past it the
   * request is abandoned as a compression bomb. @default no ratio limit
   */
  readonly maxDecompressionRatio?: number;
  /**
   * Read the first `maxBytes` even when `Content-Length` announces more (for
   * robots.txt, whose first 500 KiB count). @default false: refused up front
   */
  readonly keepPartial?: boolean;
  /** Whether the body is wanted, from status and `Content-Type`. @default 2xx only */
  readonly wantBody?: (status: number, contentType: string | undefined) => boolean;
  readonly signal?: AbortSignal;
}

export type PageResponse =
  | {
      readonly kind: 'response';
      readonly status: number;
      readonly contentType: string | undefined;
      /** `Location`, for redirects. */
      readonly location: string | undefined;
      /** Empty when the body was not wanted. */
      readonly body: Buffer;
    }
  | {
      /** The body passed `maxBytes` (declared or read): reading stopped there. */
      readonly kind: 'too-large';
      readonly status: number;
      readonly contentType: string | undefined;
      /** What had been read when it stopped (empty if `Content-Length` said so up front). */
      readonly partialBody: Buffer;
    }
  | {
      /** The body decompressed past `maxDecompressionRatio`: reading stopped there. */
      readonly kind: 'compression-bomb';
      readonly status: number;
      /** What had been read when it stopped. */
      readonly bytesRead: number;
      readonly detail: string;
    }
  | {
      readonly kind: 'failed';
      readonly reason: 'address-refused' | 'timeout' | 'connection-failed' | 'aborted';
      /** Safe to store and show: no response content, no header values. */
      readonly detail: string;
    };

/** Performs one request; never throws. The crawler's `fetchImpl` seam. */
export type PageFetcher = (request: PageRequest) => Promise<PageResponse>;

export interface GuardedPageFetcher {
  readonly fetch: PageFetcher;
  /** Closes pooled connections. */
  close(): void;
}

/**
 * node:http(s) GETs under the SSRF rules, for one crawl:
 *
 * - the URL's scheme is checked against the policy and an IP-literal host
 *   with {@link checkLiteralHost} before anything is sent; names resolve
 *   through {@link guardedLookup}, so the address actually connected to is
 *   the one checked (DNS rebinding included);
 * - redirects are returned, not followed: the caller checks every hop;
 * - `timeoutMs` bounds the whole exchange, `maxBytes` the decoded body
 *   (`Content-Length` is believed when it says too much, never when it says
 *   little), so neither a slow nor a huge (or compressed-huge) response can
 *   hold the crawler.
 *
 * Connections are kept alive and pooled per crawl (`maxSockets` per origin):
 * a pooled socket was checked when it connected, and reuse spares the site.
 *
 * @example
 * const fetcher = createGuardedPageFetcher(crawlerPolicy, { maxSockets: 4 });
 * const response = await fetcher.fetch({ url: new URL('https://example.com/'), headers: {}, timeoutMs: 10_000, maxBytes: 5 << 20 });
 * fetcher.close;
 */
export function createGuardedPageFetcher(
  policy: OutboundPolicy,
  options: { readonly maxSockets: number },
): GuardedPageFetcher {
  const lookup = guardedLookup(policy);
  const ca = trustedCertificates(policy);
  const agentOptions = { keepAlive: true, maxSockets: options.maxSockets, lookup };
  const httpAgent = new HttpAgent(agentOptions);
  const httpsAgent = new HttpsAgent({ ...agentOptions, ca, rejectUnauthorized: true });

  const fetch: PageFetcher = (request) => {
    const parsed = parseOutboundUrl(request.url.href, policy);
    if (!parsed.ok) return Promise.resolve(failed('address-refused', parsed.reason));
    const { url } = parsed;
    const host = hostOf(url);
    const refusal = checkLiteralHost(host, policy);
    if (refusal) return Promise.resolve(failed('address-refused', refusal.message));
    if (request.signal?.aborted) return Promise.resolve(failed('aborted', 'crawl stopped'));

    return new Promise<PageResponse>((resolve) => {
      let outgoing: ClientRequest | undefined;
      let settled = false;
      /** `consumed`: the body was read to its end, so the socket can go back to the pool. */
      const finish = (response: PageResponse, consumed = false) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        request.signal?.removeEventListener('abort', onAbort);
        if (!consumed) outgoing?.destroy();
        resolve(response);
      };
      const onAbort = () => finish(failed('aborted', 'crawl stopped'));
      const timer = setTimeout(
        () => finish(failed('timeout', `no complete response within ${request.timeoutMs} ms`)),
        request.timeoutMs,
      );
      request.signal?.addEventListener('abort', onAbort, { once: true });

      const onResponse = (response: IncomingMessage) => {
        const status = response.statusCode ?? 0;
        const contentType = header(response, 'content-type');
        const wantBody = request.wantBody ?? ((code: number) => code >= 200 && code < 300);
        if (!wantBody(status, contentType)) {
          finish({
            kind: 'response',
            status,
            contentType,
            location: header(response, 'location'),
            body: Buffer.alloc(0),
          });
          return;
        }
        const declared = Number(header(response, 'content-length'));
        if (!request.keepPartial && Number.isFinite(declared) && declared > request.maxBytes) {
          finish({ kind: 'too-large', status, contentType, partialBody: Buffer.alloc(0) });
          return;
        }
        readBody(response, request, (outcome) => {
          if (outcome.kind === 'failed') return finish(failed('connection-failed', outcome.detail));
          if (outcome.kind === 'compression-bomb') {
            return finish({
              kind: 'compression-bomb',
              status,
              bytesRead: outcome.bytesRead,
              detail: outcome.detail,
            });
          }
          if (outcome.kind === 'too-large') {
            return finish({ kind: 'too-large', status, contentType, partialBody: outcome.body });
          }
          return finish(
            {
              kind: 'response',
              status,
              contentType,
              location: header(response, 'location'),
              body: outcome.body,
            },
            true,
          );
        });
      };

      try {
        const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
        outgoing = send(
          {
            method: 'GET',
            protocol: url.protocol,
            host,
            port: url.port === '' ? undefined : Number(url.port),
            path: `${url.pathname}${url.search}`,
            headers: { ...request.headers, 'Accept-Encoding': 'gzip, deflate, br' },
            agent: url.protocol === 'https:' ? httpsAgent : httpAgent,
            lookup,
            servername: isIP(host) === 0 ? host : undefined,
          },
          onResponse,
        );
        outgoing.on('error', (error) =>
          finish(failed(kindOf(error), describeConnectionError(error))),
        );
        outgoing.end();
      } catch (error) {
        // Synchronous refusals from node:http (an invalid header value).
        finish(failed('connection-failed', describeConnectionError(error)));
      }
    });
  };

  return {
    fetch,
    close: () => {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}

type BodyOutcome =
  | { readonly kind: 'complete'; readonly body: Buffer }
  | { readonly kind: 'too-large'; readonly body: Buffer }
  | { readonly kind: 'compression-bomb'; readonly bytesRead: number; readonly detail: string }
  | { readonly kind: 'failed'; readonly detail: string };

/**
 * Decoded bytes below which the ratio is not checked: a small page may
 * compress very well (a page of repeated markup) and costs nothing anyway.
 */
export const RATIO_CHECK_AFTER_BYTES = 1024 * 1024;

/**
 * Reads the body through the decoder its `Content-Encoding` names, counting
 * decoded bytes, and stops at `maxBytes` (a small gzip body can inflate to
 * gigabytes), or as soon as more than `maxDecompressionRatio` bytes came out
 * per byte that went in.
 */
function readBody(
  response: IncomingMessage,
  request: Pick<PageRequest, 'maxBytes' | 'maxDecompressionRatio'>,
  done: (outcome: BodyOutcome) => void,
): void {
  const { maxBytes, maxDecompressionRatio } = request;
  const encoding = (header(response, 'content-encoding') ?? 'identity').trim().toLowerCase();
  let decoder: Gunzip | Inflate | BrotliDecompress | undefined;
  if (encoding === 'gzip' || encoding === 'x-gzip') decoder = createGunzip();
  else if (encoding === 'deflate') decoder = createInflate();
  else if (encoding === 'br') decoder = createBrotliDecompress();
  else if (encoding !== 'identity' && encoding !== '') {
    response.resume();
    done({ kind: 'failed', detail: `unsupported content encoding ${safeToken(encoding)}` });
    return;
  }

  const chunks: Buffer[] = [];
  let received = 0;
  let over = false;
  let finished = false;
  const end = (outcome: BodyOutcome) => {
    if (finished) return;
    finished = true;
    decoder?.destroy();
    done(outcome);
  };
  const take = (chunk: Buffer) => {
    if (over) return;
    const room = maxBytes - received;
    if (chunk.length > room) {
      over = true;
      chunks.push(chunk.subarray(0, room));
      end({ kind: 'too-large', body: Buffer.concat(chunks) });
      return;
    }
    received += chunk.length;
    chunks.push(chunk);
    // Against the compressed bytes the decoder has consumed, not those received:
    // one 64 KiB network chunk of a bomb inflates to 64 MiB.
    const consumed = decoder?.bytesWritten ?? 0;
    if (
      decoder &&
      maxDecompressionRatio !== undefined &&
      received > RATIO_CHECK_AFTER_BYTES &&
      received > consumed * maxDecompressionRatio
    ) {
      over = true;
      end({
        kind: 'compression-bomb',
        bytesRead: received,
        detail: `its ${safeToken(encoding)} body decompresses more than ${maxDecompressionRatio} times (${received} bytes from ${consumed})`,
      });
    }
  };
  const source = decoder ?? response;
  source.on('data', take);
  source.on('end', () => end({ kind: 'complete', body: Buffer.concat(chunks) }));
  source.on('error', () =>
    end({
      kind: 'failed',
      detail: decoder ? `invalid ${encoding} body` : 'connection closed while reading the response',
    }),
  );
  if (decoder) {
    // Compressed bytes are capped too, so a stalled decoder cannot buffer without bound.
    let compressed = 0;
    response.on('data', (chunk: Buffer) => {
      compressed += chunk.length;
      if (compressed > maxBytes) end({ kind: 'too-large', body: Buffer.concat(chunks) });
    });
    response.pipe(decoder);
    response.on('error', () =>
      end({ kind: 'failed', detail: 'connection closed while reading the response' }),
    );
  }
  response.on('close', () => {
    if (!response.complete && !over) {
      end({ kind: 'failed', detail: 'connection closed while reading the response' });
    }
  });
}

function failed(
  reason: 'address-refused' | 'timeout' | 'connection-failed' | 'aborted',
  detail: string,
): PageResponse {
  return { kind: 'failed', reason, detail };
}

function kindOf(error: unknown): 'address-refused' | 'connection-failed' {
  return error instanceof AddressNotAllowedError ? 'address-refused' : 'connection-failed';
}

function header(response: IncomingMessage, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** A header token fit for a message: short, and nothing but token characters. */
function safeToken(value: string): string {
  return /^[\w.+-]{1,32}$/.test(value) ? value : '(unrecognised)';
}
