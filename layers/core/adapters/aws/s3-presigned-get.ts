import { createHash, createHmac } from 'node:crypto';

/** What signs a presigned GET: the caller's AWS credentials (a Lambda role's carry a session token). */
export interface SigningCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string | undefined;
}

export interface PresignedGetInput {
  /** The bucket's address, as the S3 client resolves it (`https://bucket.s3.region.amazonaws.com/`). */
  readonly bucketUrl: URL;
  readonly key: string;
  readonly region: string;
  readonly credentials: SigningCredentials;
  readonly signedAt: Date;
  readonly expiresInSeconds: number;
  /** Extra query parameters S3 reads (`response-content-type`, `response-content-disposition`), signed with the rest. */
  readonly query?: Readonly<Record<string, string>>;
}

const ALGORITHM = 'AWS4-HMAC-SHA256';

/** RFC 3986 percent-encoding, as Signature Version 4 wants it (only A–Z a–z 0–9 - _ . ~ stay). */
const encodeRfc3986 = (text: string): string =>
  encodeURIComponent(text).replace(
    /[!'()*]/g,
    (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`,
  );

const sha256Hex = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');
const hmac = (key: Buffer | string, text: string): Buffer =>
  createHmac('sha256', key).update(text, 'utf8').digest();

/**
 * An S3 GET presigned with Signature Version 4 in the query string
 * ("Authenticating Requests: Using Query Parameters"): computed locally from
 * the credentials, no request made. Written here rather than taken from
 * `@aws-sdk/s3-request-presigner` to add no dependency for one signature;
 * checked against the example AWS documents.
 */
export function presignedGetUrl(input: PresignedGetInput): string {
  const amzDate = input.signedAt
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  const day = amzDate.slice(0, 8);
  const scope = `${day}/${input.region}/s3/aws4_request`;
  const base = input.bucketUrl.pathname.replace(/\/+$/, '');
  const path = `${base}/${input.key.split('/').map(encodeRfc3986).join('/')}`;
  const parameters: Record<string, string> = {
    ...input.query,
    'X-Amz-Algorithm': ALGORITHM,
    'X-Amz-Credential': `${input.credentials.accessKeyId}/${scope}`,
    'X-Amz-Date': amzDate,
    'X-Amz-Expires': String(input.expiresInSeconds),
    'X-Amz-SignedHeaders': 'host',
    ...(input.credentials.sessionToken
      ? { 'X-Amz-Security-Token': input.credentials.sessionToken }
      : {}),
  };
  const canonicalQuery = Object.keys(parameters)
    .map((name) => [encodeRfc3986(name), encodeRfc3986(parameters[name] ?? '')] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  const host = input.bucketUrl.host;
  const canonicalRequest = [
    'GET',
    path,
    canonicalQuery,
    `host:${host}\n`,
    'host',
    'UNSIGNED-PAYLOAD',
  ].join('\n');
  const stringToSign = [ALGORITHM, amzDate, scope, sha256Hex(canonicalRequest)].join('\n');
  const signingKey = hmac(
    hmac(hmac(hmac(`AWS4${input.credentials.secretAccessKey}`, day), input.region), 's3'),
    'aws4_request',
  );
  const signature = createHmac('sha256', signingKey).update(stringToSign, 'utf8').digest('hex');
  return `${input.bucketUrl.protocol}//${host}${path}?${canonicalQuery}&X-Amz-Signature=${signature}`;
}
