import type { IncomingMessage, ServerResponse } from 'node:http';
import type { S3Event } from 'aws-lambda';
import busboy from 'busboy';
import type { LocalFileStorage } from '../../layers/core/adapters/local/local-file-storage';
import { newId } from '../../layers/core/domain/ids';
import { nestedErrorBody } from '../../layers/core/http/error-body';
import { SECURITY_HEADERS } from '../../layers/core/http/middlewares/response-headers';

/** Where the local gateway takes presigned uploads (S3's bucket endpoint in the cloud). */
export const LOCAL_UPLOAD_PATH = '/_local/uploads';

/** Form fields besides the file: S3's form has a handful; anything near this is not a real upload. */
const MAX_FIELDS = 20;
const MAX_FIELD_BYTES = 8 * 1024;

class UploadRefused extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const REFUSALS = {
  malformed: new UploadRefused(
    400,
    'invalid_request',
    'The upload form lacks a valid key, policy or signature (send the upload fields before the file)',
  ),
  signature: new UploadRefused(403, 'forbidden', 'The upload signature does not match its policy'),
  expired: new UploadRefused(
    403,
    'forbidden',
    'The presigned upload has expired; ask for a new one',
  ),
} as const;

/**
 * Takes a presigned upload as S3 takes a presigned POST: a
 * `multipart/form-data` body whose fields carry the key, policy and
 * signature and whose last part is the file. The signature and expiry are
 * checked before the file is read, the size while it is read (a file over
 * the policy's limit is refused and nothing is kept), and only a complete
 * file is stored. Then `onStored` plays S3's event notification. Success is
 * S3's default `204 No Content`; refusals use the API's error shape (S3's
 * are XML).
 */
export function handleUpload(
  request: IncomingMessage,
  response: ServerResponse,
  storage: LocalFileStorage,
  onStored: (key: string, size: number) => Promise<void>,
): Promise<number> {
  return receiveUpload(request, storage, onStored).then(
    () => {
      response.writeHead(204, { ...SECURITY_HEADERS });
      response.end();
      return 204;
    },
    (error: unknown) => {
      const refusal =
        error instanceof UploadRefused
          ? error
          : new UploadRefused(500, 'internal_error', 'The upload could not be stored');
      if (!(error instanceof UploadRefused)) console.error('Upload failed:', error);
      const requestId = newId('request');
      response.writeHead(refusal.status, {
        ...SECURITY_HEADERS,
        'Content-Type': 'application/json; charset=utf-8',
        'X-Request-Id': requestId,
        // The rest of a refused body is not read: the client must not reuse this connection.
        Connection: 'close',
      });
      response.end(
        JSON.stringify(
          nestedErrorBody(
            { status: refusal.status, code: refusal.code, message: refusal.message, details: {} },
            requestId,
          ),
        ),
      );
      return refusal.status;
    },
  );
}

function receiveUpload(
  request: IncomingMessage,
  storage: LocalFileStorage,
  onStored: (key: string, size: number) => Promise<void>,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (request.method !== 'POST') {
      reject(
        new UploadRefused(405, 'invalid_request', 'Uploads are POSTed as multipart/form-data'),
      );
      return;
    }
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: request.headers,
        limits: { fields: MAX_FIELDS, fieldSize: MAX_FIELD_BYTES, files: 1, parts: MAX_FIELDS + 1 },
      });
    } catch {
      reject(
        new UploadRefused(400, 'invalid_request', 'Uploads are POSTed as multipart/form-data'),
      );
      return;
    }
    const fields: Record<string, string> = {};
    let settled = false;
    let sawFile = false;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      request.unpipe(parser);
      request.resume();
      reject(error);
    };

    parser.on('field', (name, value, info) => {
      if (info.valueTruncated)
        fail(new UploadRefused(400, 'invalid_request', `Form field ${name} is too long`));
      else fields[name] = value;
    });
    parser.on('file', (name, stream) => {
      if (name !== 'file' || sawFile) {
        stream.resume();
        return;
      }
      sawFile = true;
      const check = storage.checkUpload(fields);
      if (!check.ok) {
        stream.resume();
        fail(REFUSALS[check.reason]);
        return;
      }
      const { key, maxBytes } = check.policy;
      const parts: Buffer[] = [];
      let size = 0;
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) {
          stream.resume();
          fail(
            new UploadRefused(
              413,
              'invalid_request',
              `The file is larger than this upload allows (${maxBytes} bytes)`,
            ),
          );
          return;
        }
        if (!settled) parts.push(chunk);
      });
      stream.on('end', () => {
        if (settled) return;
        if (size === 0) {
          fail(new UploadRefused(400, 'invalid_request', 'The file is empty'));
          return;
        }
        storage
          .write(key, Buffer.concat(parts))
          .then(() => onStored(key, size))
          .then(() => {
            settled = true;
            resolve();
          }, fail);
      });
    });
    parser.on('partsLimit', () =>
      fail(new UploadRefused(400, 'invalid_request', 'Too many form parts')),
    );
    parser.on('fieldsLimit', () =>
      fail(new UploadRefused(400, 'invalid_request', 'Too many form fields')),
    );
    parser.on('error', () =>
      fail(new UploadRefused(400, 'invalid_request', 'The multipart body is malformed')),
    );
    parser.on('close', () => {
      if (!sawFile) fail(new UploadRefused(400, 'invalid_request', 'The form has no `file` part'));
    });
    request.on('error', fail);
    request.pipe(parser);
  });
}

/** The event S3 sends the ingestion queue when an upload is stored (the fields the worker reads, and their neighbours). */
export function objectCreatedEvent(key: string, size: number, now: number): S3Event {
  return {
    Records: [
      {
        eventVersion: '2.1',
        eventSource: 'aws:s3',
        awsRegion: 'local',
        eventTime: new Date(now).toISOString(),
        eventName: 'ObjectCreated:Post',
        userIdentity: { principalId: 'local' },
        requestParameters: { sourceIPAddress: '127.0.0.1' },
        responseElements: { 'x-amz-request-id': 'local', 'x-amz-id-2': 'local' },
        s3: {
          s3SchemaVersion: '1.0',
          configurationId: 'local-uploads',
          bucket: {
            name: 'local',
            ownerIdentity: { principalId: 'local' },
            arn: 'arn:aws:s3:::local',
          },
          // S3 URL-encodes keys in events; ours are ids and slashes, which encode as themselves.
          object: { key, size, eTag: '', sequencer: String(now) },
        },
      },
    ],
  };
}
