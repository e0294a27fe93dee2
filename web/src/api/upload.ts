import { ApiError } from './api-error';
import type { components } from './schema';

/** What `POST /api/v1/data-sources/{id}/files` answers for each file that sending needs. */
export type UploadTicket = Pick<
  components['schemas']['FileUploadTicket'],
  'upload_url' | 'upload_method' | 'upload_fields'
>;

/**
 * Sends one file through its presigned upload: an HTML-form POST of
 * the ticket's fields, then the file as `file`, to `upload_url` — the local
 * gateway's upload endpoint on one machine, S3 in the cloud. It goes by
 * `XMLHttpRequest` because `fetch` reports no upload progress; `onProgress`
 * gets the share sent, 0 to 1. No cookie or token goes with it: the
 * signature in the fields is its credential. Fails with an `ApiError`
 * whose sentence says what happened.
 */
export function sendFile(
  ticket: UploadTicket,
  file: Blob,
  onProgress: (fraction: number) => void,
  signal?: AbortSignal,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const form = new FormData();
    for (const [name, value] of Object.entries(ticket.upload_fields)) form.append(name, value);
    form.append('file', file);
    const request = new XMLHttpRequest();
    request.open(ticket.upload_method, ticket.upload_url);
    request.withCredentials = false;
    request.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable && event.total > 0) onProgress(event.loaded / event.total);
    });
    request.addEventListener('load', () => {
      if (request.status >= 200 && request.status < 300) {
        onProgress(1);
        resolve();
        return;
      }
      reject(uploadRefusal(request.status, request.responseText, request));
    });
    request.addEventListener('error', () => reject(ApiError.unreachable(new Error('network'))));
    request.addEventListener('abort', () =>
      reject(ApiError.unreachable(new DOMException('stopped', 'AbortError'))),
    );
    signal?.addEventListener('abort', () => request.abort(), { once: true });
    request.send(form);
  });
}

/**
 * The refusal of an upload: the local endpoint answers the API's JSON error
 * shape; S3 answers XML (`<Code>EntityTooLarge</Code>`, …), read for its code.
 */
export function uploadRefusal(
  status: number,
  body: string,
  request: Pick<XMLHttpRequest, 'getResponseHeader'>,
): ApiError {
  const headers = new Headers();
  const requestId = request.getResponseHeader('X-Request-Id');
  if (requestId) headers.set('X-Request-Id', requestId);
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(body);
  } catch {
    const code = /<Code>([^<]+)<\/Code>/.exec(body)?.[1];
    if (code === 'EntityTooLarge') {
      return new ApiError(
        status,
        code,
        'The file is larger than uploads allow (50 MiB).',
        '',
        {},
        null,
        null,
      );
    }
    if (code === 'AccessDenied' || code === 'RequestTimeTooSkewed' || code === 'ExpiredToken') {
      return new ApiError(
        status,
        code,
        'The upload was refused: its permission expired. Drop the file again.',
        '',
        {},
        null,
        null,
      );
    }
  }
  return ApiError.from(parsed, { status, headers });
}
