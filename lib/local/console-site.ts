import { createReadStream, existsSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, resolve, sep } from 'node:path';
import { CONSOLE_SECURITY_HEADERS } from '../console/security-headers';
import { CompressedFiles } from './compressed-files';
import { encodingFor, isCompressibleType, MIN_COMPRESSIBLE_BYTES } from './compression';

/**
 * The web console on the API's origin, as CloudFront serves it in the
 * cloud. `assets/` holds files whose names carry their content's hash
 * (web/build.mjs): cached for a year and never revalidated. Every other
 * path outside /api answers `index.html`, never cached, so deep links and
 * reloads reach the application and a new build is picked up at once.
 * A path whose last part has a dot names a file (`/robots.txt`): when
 * there is none it is a 404, as the cloud's deep-link function does, not
 * the application's page in its place.
 *
 * Text files go compressed when the browser takes it (Brotli, else gzip),
 * kept in memory (compressed-files.ts).
 */
const IMMUTABLE = 'public, max-age=31536000, immutable';
const NEVER = 'no-store';
/** A few files outside assets/ keep their names (the icon a browser asks for by itself). */
const SHORT = 'public, max-age=3600';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

export type ConsoleSite = (request: IncomingMessage, response: ServerResponse) => Promise<number>;

/** Whether a path belongs to the API (routed to the functions) rather than the console. */
export function isApiPath(path: string): boolean {
  return path === '/api' || path.startsWith('/api/');
}

/** Serves the built console in `directory` (web/dist): GET and HEAD only, the caller checks. */
export function consoleSite(directory: string): ConsoleSite {
  const root = resolve(directory);
  const index = join(root, 'index.html');
  const compressed = new CompressedFiles();
  return async (request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const file = fileFor(root, path);
    if (file)
      return send(
        request,
        response,
        file,
        path.startsWith('/assets/') ? IMMUTABLE : SHORT,
        compressed,
      );
    // A missing hashed file is a stale page asking for an old build, and a missing
    // `/robots.txt` is no page either: not the application in their place.
    if (path.startsWith('/assets/') || (namesAFile(path) && path !== '/index.html')) {
      return notFound(response);
    }
    if (!existsSync(index)) return notFound(response);
    return send(request, response, index, NEVER, compressed);
  };
}

/** Whether the path's last part has a dot, as a file's name does and the console's routes never do. */
function namesAFile(path: string): boolean {
  return path.lastIndexOf('.') > path.lastIndexOf('/');
}

/** The file a path names inside the console's folder, if it is a regular file there. */
function fileFor(root: string, path: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return null;
  }
  if (decoded === '/' || decoded.includes('\0')) return null;
  const file = resolve(root, `.${decoded}`);
  if (!file.startsWith(root + sep)) return null;
  if (file === join(root, 'index.html')) return null; // always through the no-store answer
  try {
    return statSync(file).isFile() ? file : null;
  } catch {
    return null;
  }
}

async function send(
  request: IncomingMessage,
  response: ServerResponse,
  file: string,
  cacheControl: string,
  compressed: CompressedFiles,
): Promise<number> {
  const { size, mtimeMs } = statSync(file);
  const contentType = CONTENT_TYPES[extname(file)] ?? 'application/octet-stream';
  const headers = {
    ...CONSOLE_SECURITY_HEADERS,
    'Content-Type': contentType,
    'Cache-Control': cacheControl,
    ...(isCompressibleType(contentType) ? { Vary: 'Accept-Encoding' } : {}),
  };
  const encoding =
    size >= MIN_COMPRESSIBLE_BYTES ? encodingFor(request.headers, contentType) : null;
  if (encoding) {
    const body = await compressed.get(file, mtimeMs, size, encoding);
    response.writeHead(200, {
      ...headers,
      'Content-Encoding': encoding,
      'Content-Length': String(body.length),
    });
    response.end(request.method === 'HEAD' ? undefined : body);
    return 200;
  }
  response.writeHead(200, { ...headers, 'Content-Length': String(size) });
  if (request.method === 'HEAD') {
    response.end();
    return Promise.resolve(200);
  }
  return new Promise<number>((done) => {
    const stream = createReadStream(file);
    stream.on('error', () => {
      response.destroy();
      done(500);
    });
    stream.on('end', () => done(200));
    stream.pipe(response);
  });
}

function notFound(response: ServerResponse): Promise<number> {
  const body = 'Not found\n';
  response.writeHead(404, {
    ...CONSOLE_SECURITY_HEADERS,
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    'Cache-Control': NEVER,
  });
  response.end(body);
  return Promise.resolve(404);
}
