import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LocalFileStorage } from '../../layers/core/adapters/local/local-file-storage';
import { newId } from '../../layers/core/domain/ids';
import { nestedErrorBody } from '../../layers/core/http/error-body';
import { SECURITY_HEADERS } from '../../layers/core/http/middlewares/response-headers';

/** Where the local gateway serves presigned downloads (S3's bucket endpoint in the cloud). */
export const LOCAL_DOWNLOAD_PATH = '/_local/downloads';

const REFUSALS = {
  malformed: [400, 'invalid_request', 'The download address lacks a valid policy or signature'],
  signature: [403, 'forbidden', 'The download signature does not match its policy'],
  expired: [403, 'forbidden', 'The download address has expired; open the document again'],
  gone: [404, 'not_found', 'The file is no longer stored'],
  method: [405, 'invalid_request', 'Downloads are read with GET or HEAD'],
} as const;

/**
 * Serves a presigned download as S3 serves a presigned GET (a cited file's
 * `document_url` redirects here on one machine): the signature and expiry
 * are checked, then the stored bytes are sent with the content type and
 * disposition the signature pins. This is the API's own origin, unlike S3's
 * in the cloud, so an uploaded HTML page is shown sandboxed: no script of it
 * runs as the console.
 */
export async function handleDownload(
  request: IncomingMessage,
  response: ServerResponse,
  storage: LocalFileStorage,
): Promise<number> {
  const method = request.method ?? 'GET';
  if (method !== 'GET' && method !== 'HEAD') return refuse(response, 'method');
  const check = storage.checkDownload(new URL(request.url ?? '/', 'http://localhost').searchParams);
  if (!check.ok) return refuse(response, check.reason);
  const bytes = await storage.read(check.policy.key);
  if (!bytes) return refuse(response, 'gone');
  const pdf = check.policy.contentType.startsWith('application/pdf');
  response.writeHead(200, {
    ...SECURITY_HEADERS,
    // A browser's PDF viewer does not run in a sandboxed document; a PDF runs no page script.
    'Content-Security-Policy': pdf
      ? "default-src 'none'; frame-ancestors 'none'"
      : "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; sandbox",
    'Cache-Control': 'private, no-store',
    'Content-Type': check.policy.contentType,
    'Content-Disposition': check.policy.contentDisposition,
    'Content-Length': String(bytes.length),
  });
  response.end(method === 'HEAD' ? undefined : bytes);
  return 200;
}

function refuse(response: ServerResponse, reason: keyof typeof REFUSALS): number {
  const [status, code, message] = REFUSALS[reason];
  const requestId = newId('request');
  response.writeHead(status, {
    ...SECURITY_HEADERS,
    'Content-Type': 'application/json; charset=utf-8',
    'X-Request-Id': requestId,
  });
  response.end(JSON.stringify(nestedErrorBody({ status, code, message, details: {} }, requestId)));
  return status;
}
