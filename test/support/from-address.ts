import { request as httpRequest } from 'node:http';
import type { ApiRequest, ApiResponse } from './http-client';

/**
 * `api()` from a chosen local address: the request leaves this machine's
 * socket bound to `localAddress` (any of 127.0.0.0/8 on Linux loopback, or
 * `::1`), so the service sees that address as the TCP peer, as API Gateway
 * would report a client's (D15). Headers are sent as given, `Cookie` and
 * `X-Forwarded-For` included, which lets a test show that no header moves
 * the address the service judges.
 */
export function apiFrom(
  localAddress: string,
  baseUrl: string,
  path: string,
  request: ApiRequest = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...request.headers };
  if (request.key) headers.authorization = `Bearer ${request.key}`;
  let body: string | Buffer | undefined;
  if (request.rawBody !== undefined) body = request.rawBody;
  else if (request.body !== undefined) {
    body = JSON.stringify(request.body);
    headers['content-type'] ??= 'application/json';
  }
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
  const url = new URL(path, baseUrl);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port,
        path: `${url.pathname}${url.search}`,
        method: request.method ?? 'GET',
        headers,
        localAddress,
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
              responseHeaders.append(name, one);
            }
          }
          let parsed: unknown = null;
          try {
            parsed = text ? JSON.parse(text) : null;
          } catch {
            parsed = null;
          }
          resolve({
            status: response.statusCode ?? 0,
            headers: responseHeaders,
            body: parsed,
            text,
          });
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}
