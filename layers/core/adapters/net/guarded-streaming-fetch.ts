import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { Readable } from 'node:stream';
import { describeConnectionError } from './connection-error';
import { OutboundRequestError } from './guarded-fetch';
import { type OutboundPolicy, trustedCertificates } from './outbound-policy';
import { checkLiteralHost, guardedLookup, hostOf, parseOutboundUrl } from './url-guard';

/**
 * A `fetch` for a customer's model endpoint (D33 `custom`, D35) that SDKs
 * can stream through: the same rules as guardedFetch — the policy's
 * schemes, every connected address checked (guardedLookup), IP literals
 * checked, no redirect followed (a 3xx comes back as is) — but the
 * `Response` resolves at the headers and its body streams, so a chat
 * completion's server-sent events arrive as the model writes them. Time
 * limits are the SDK's (and the answerer's silence watchdog); the body is
 * capped at `maxBytes`.
 */
export function guardedStreamingFetch(
  policy: OutboundPolicy,
  options: { readonly maxBytes: number },
): typeof fetch {
  const lookup = guardedLookup(policy);
  const ca = trustedCertificates(policy);
  const guarded = (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const raw = input instanceof Request ? input.url : String(input);
    const parsed = parseOutboundUrl(raw, policy);
    if (!parsed.ok) return Promise.reject(new OutboundRequestError(parsed.reason));
    const { url } = parsed;
    const host = hostOf(url);
    const refusal = checkLiteralHost(host, policy);
    if (refusal) return Promise.reject(new OutboundRequestError(refusal.message));
    const body = typeof init.body === 'string' ? init.body : undefined;
    const headers = new Headers(init.headers);
    if (body !== undefined) headers.set('content-length', String(Buffer.byteLength(body)));
    const signal = init.signal ?? undefined;

    return new Promise<Response>((resolve, reject) => {
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
          ...(signal ? { signal } : {}),
        },
        (response: IncomingMessage) => resolve(streamedResponse(response, options.maxBytes)),
      );
      outgoing.on('error', (error) =>
        reject(
          signal?.aborted
            ? signal.reason
            : new OutboundRequestError(describeConnectionError(error)),
        ),
      );
      outgoing.end(body);
    });
  };
  return guarded as typeof fetch;
}

function streamedResponse(response: IncomingMessage, maxBytes: number): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(response.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const each of value) headers.append(name, each);
  }
  const status = response.statusCode ?? 502;
  if (status === 204 || status === 304) {
    response.resume();
    return new Response(null, { status, headers });
  }
  let size = 0;
  response.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > maxBytes) {
      response.destroy(new OutboundRequestError('the model endpoint sent too large a response'));
    }
  });
  const body = Readable.toWeb(response) as ReadableStream<Uint8Array>;
  return new Response(body, { status, headers });
}
