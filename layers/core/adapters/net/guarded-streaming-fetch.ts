import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { describeConnectionError } from './connection-error';
import { guardedRequester, OutboundRequestError } from './guarded-fetch';
import type { OutboundPolicy } from './outbound-policy';

/**
 * A `fetch` for a customer's model endpoint (`custom`) that SDKs
 * can stream through: the same checks as guardedFetch (guardedRequester:
 * the policy's schemes, IP literals, every connected address, no redirect
 * followed), but the `Response` resolves at the headers and its body
 * streams, so a chat completion's server-sent events arrive as the model
 * writes them. Time
 * limits are the SDK's (and the answerer's silence watchdog); the body is
 * capped at `maxBytes`.
 */
export function guardedStreamingFetch(
  policy: OutboundPolicy,
  options: { readonly maxBytes: number },
): typeof fetch {
  const prepare = guardedRequester(policy);
  const guarded = (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const prepared = prepare(input instanceof Request ? input.url : String(input), init);
    if (prepared instanceof OutboundRequestError) return Promise.reject(prepared);
    const signal = init.signal ?? undefined;
    return new Promise<Response>((resolve, reject) => {
      prepared.send(
        (response: IncomingMessage) => resolve(streamedResponse(response, options.maxBytes)),
        (error) =>
          reject(
            signal?.aborted
              ? signal.reason
              : new OutboundRequestError(describeConnectionError(error)),
          ),
        signal,
      );
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
