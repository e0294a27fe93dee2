import type { IncomingHttpHeaders } from 'node:http';
import type { Transform } from 'node:stream';
import { promisify } from 'node:util';
import {
  brotliCompress,
  constants,
  createBrotliCompress,
  createGzip,
  gzip,
  type ZlibOptions,
} from 'node:zlib';

/**
 * Compression on one machine, as CloudFront does it in front of the console
 * in the cloud: Brotli when the client takes it, gzip otherwise, the body as
 * it is when it takes neither. Only node:zlib.
 */
export type Encoding = 'br' | 'gzip';

/** How hard to work: quick (every API answer, a file's first request), or best (a kept file, in the background). */
export type Effort = 'quick' | 'best';

/**
 * Bodies below this go as they are: compressing them saves less than the
 * headers it adds (CloudFront's own threshold is 1,000 bytes).
 */
export const MIN_COMPRESSIBLE_BYTES = 1024;

/**
 * Text that shrinks. Never `text/event-stream`: a streamed answer is
 * written event by event, and a compressor would hold events back until
 * it had enough to emit.
 */
export function isCompressibleType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const type = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (type === 'text/event-stream') return false;
  return (
    type.startsWith('text/') ||
    type === 'application/json' ||
    type.endsWith('+json') ||
    type === 'application/javascript' ||
    type === 'application/xml' ||
    type === 'image/svg+xml'
  );
}

/**
 * The encoding to answer with, from `Accept-Encoding` (RFC 9110 §12.5.3):
 * the acceptable one with the higher weight, Brotli on a tie; `*` stands for
 * any not named; `q=0` refuses. null: the body as it is.
 */
export function chooseEncoding(acceptEncoding: string | string[] | undefined): Encoding | null {
  const header = Array.isArray(acceptEncoding) ? acceptEncoding.join(',') : acceptEncoding;
  if (!header) return null;
  const weights = new Map<string, number>();
  for (const part of header.split(',')) {
    const [token, ...parameters] = part.split(';').map((piece) => piece.trim().toLowerCase());
    if (!token) continue;
    let weight = 1;
    for (const parameter of parameters) {
      const match = /^q=([0-9.]+)$/.exec(parameter);
      if (match) weight = Number(match[1]);
    }
    weights.set(token, Number.isFinite(weight) ? weight : 0);
  }
  const weightOf = (encoding: Encoding) => weights.get(encoding) ?? weights.get('*') ?? 0;
  const br = weightOf('br');
  const gzipWeight = weightOf('gzip');
  if (br <= 0 && gzipWeight <= 0) return null;
  return br >= gzipWeight ? 'br' : 'gzip';
}

/** The request's chosen encoding, for a body of this type. */
export function encodingFor(
  headers: IncomingHttpHeaders,
  contentType: string | undefined,
): Encoding | null {
  return isCompressibleType(contentType) ? chooseEncoding(headers['accept-encoding']) : null;
}

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

function brotliOptions(effort: Effort, size: number) {
  return {
    params: {
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      // 11 is slow but runs once per file of a build; 5 is about gzip's speed with a smaller result.
      [constants.BROTLI_PARAM_QUALITY]: effort === 'best' ? 11 : 5,
      [constants.BROTLI_PARAM_SIZE_HINT]: size,
    },
  };
}

const gzipOptions = (effort: Effort): ZlibOptions => ({ level: effort === 'best' ? 9 : 6 });

/** The body compressed, off the event loop (zlib's thread pool). */
export function compress(body: Buffer, encoding: Encoding, effort: Effort): Promise<Buffer> {
  return encoding === 'br'
    ? brotli(body, brotliOptions(effort, body.length))
    : gzipAsync(body, gzipOptions(effort));
}

/** A compressing stream, for a body written piece by piece (a function's streamed JSON). */
export function compressingStream(encoding: Encoding): Transform {
  return encoding === 'br'
    ? createBrotliCompress(brotliOptions('quick', 0))
    : createGzip(gzipOptions('quick'));
}

/**
 * `Vary` with `Accept-Encoding` added: the answer depends on it, so a
 * cache in between must not hand a Brotli body to a client that asked
 * for gzip.
 */
export function varyWithAcceptEncoding(vary: string | string[] | number | undefined): string {
  const existing = (Array.isArray(vary) ? vary.join(',') : String(vary ?? ''))
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (existing.some((name) => name === '*' || name.toLowerCase() === 'accept-encoding')) {
    return existing.join(', ');
  }
  return [...existing, 'Accept-Encoding'].join(', ');
}
