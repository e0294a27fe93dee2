import { api, json } from './http-client';
import type { TestService } from './local-service';

/** D25's answer to `POST /api/v1/data-sources/:id/files`. */
export interface UploadTicket {
  readonly document_id: string;
  readonly upload_url: string;
  readonly upload_method: 'POST';
  readonly upload_fields: Record<string, string>;
  readonly expires_at: string;
  readonly max_bytes: number;
  readonly file: Record<string, any>;
}

/** Asks for a presigned upload; fails the test unless 201. */
export async function presignUpload(
  service: TestService,
  key: string,
  dataSourceId: string,
  body: Record<string, unknown>,
): Promise<UploadTicket> {
  const response = await api(service.url, `/api/v1/data-sources/${dataSourceId}/files`, {
    method: 'POST',
    key,
    body,
  });
  expect({ status: response.status, body: response.body }).toMatchObject({ status: 201 });
  return json(response) as UploadTicket;
}

/**
 * Sends a file as any client of a presigned POST does (S3's form upload):
 * multipart/form-data with the ticket's fields first and the file last.
 */
export async function sendUpload(
  ticket: Pick<UploadTicket, 'upload_url' | 'upload_fields'>,
  bytes: Buffer,
  options: { readonly filename?: string; readonly fields?: Record<string, string> } = {},
): Promise<{ status: number; body: any }> {
  const form = new FormData();
  for (const [name, value] of Object.entries(options.fields ?? ticket.upload_fields)) {
    form.append(name, value);
  }
  form.append('file', new Blob([new Uint8Array(bytes)]), options.filename ?? 'upload');
  const response = await fetch(ticket.upload_url, { method: 'POST', body: form });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

/** Presigns, uploads and returns the ticket; fails the test unless the upload is accepted (204). */
export async function uploadFile(
  service: TestService,
  key: string,
  dataSourceId: string,
  filename: string,
  bytes: Buffer,
  contentType?: string,
): Promise<UploadTicket> {
  const ticket = await presignUpload(service, key, dataSourceId, {
    filename,
    ...(contentType ? { content_type: contentType } : {}),
    size_bytes: bytes.length,
  });
  const sent = await sendUpload(ticket, bytes, { filename });
  expect(sent).toMatchObject({ status: 204 });
  return ticket;
}

/** An uploaded file's record over HTTP. */
export async function fileRecord(
  service: TestService,
  key: string,
  dataSourceId: string,
  documentId: string,
): Promise<Record<string, any>> {
  const response = await api(
    service.url,
    `/api/v1/data-sources/${dataSourceId}/files/${documentId}`,
    { key },
  );
  expect(response.status).toBe(200);
  return json(response);
}
