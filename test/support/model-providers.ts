/**
 * One real HTTP server on 127.0.0.1 standing in for the three kinds of model
 * provider of D33, each under its own prefix and speaking its provider's
 * documented wire format (no real provider is reachable here; the responses
 * are the hand-written fixtures of test/fixtures/openai and
 * test/fixtures/anthropic, which follow the providers' documentation):
 *
 * - `/openai/v1`: OpenAI — `GET /models`, streamed `POST /chat/completions`
 *   (`Authorization: Bearer <key>`; errors `{ "error": { message, type, code } }`);
 * - `/custom/v1`: an OpenAI-compatible endpoint, the same API;
 * - `/anthropic`: Anthropic — `GET /v1/models`, streamed `POST /v1/messages`
 *   (`x-api-key` or a bearer token, `anthropic-version`; errors `{ "type": "error", "error": … }`).
 *
 * What it answers depends on `mode` (set by the test): a working key, a
 * revoked one, rate limited, down, or failing in the middle of a stream.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

const FIXTURES = join(__dirname, '..', 'fixtures');
const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');

export type ProviderMode =
  | 'ok'
  | 'revoked'
  | 'rate_limited'
  | 'down'
  | 'bad_request'
  | 'broken_stream';

export interface ProviderRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: any;
}

export interface ModelProviders {
  readonly openaiUrl: string;
  readonly anthropicUrl: string;
  readonly customUrl: string;
  readonly requests: ProviderRequest[];
  mode: ProviderMode;
  /** The key every request presented, as the provider received it. */
  keysSeen(): string[];
  close(): Promise<void>;
}

export async function startModelProviders(): Promise<ModelProviders> {
  const requests: ProviderRequest[] = [];
  const state = { mode: 'ok' as ProviderMode };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const request: ProviderRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: text ? JSON.parse(text) : null,
      };
      requests.push(request);
      const path = request.path.split('?')[0] ?? '';
      if (path.startsWith('/anthropic/'))
        return anthropic(path.slice('/anthropic'.length), request, res, state.mode);
      if (path.startsWith('/openai/v1/'))
        return openai(path.slice('/openai/v1'.length), request, res, state.mode);
      if (path.startsWith('/custom/v1/'))
        return openai(path.slice('/custom/v1'.length), request, res, state.mode);
      sendJson(res, 404, { error: { message: 'no such route', type: 'invalid_request_error' } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  return {
    openaiUrl: `${base}/openai/v1`,
    anthropicUrl: `${base}/anthropic`,
    customUrl: `${base}/custom/v1`,
    requests,
    get mode() {
      return state.mode;
    },
    set mode(mode: ProviderMode) {
      state.mode = mode;
    },
    keysSeen: () =>
      requests.map((request) => {
        const bearer = request.headers.authorization?.replace(/^Bearer /, '');
        return bearer ?? String(request.headers['x-api-key'] ?? '');
      }),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function sendSse(res: ServerResponse, sse: string) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const event of sse.split(/(?<=\n\n)/).filter((part) => part.trim() !== '')) res.write(event);
  res.end();
}

/** OpenAI's API (and a compatible endpoint's): `/models`, `/chat/completions`. */
function openai(path: string, request: ProviderRequest, res: ServerResponse, mode: ProviderMode) {
  if (!request.headers.authorization?.startsWith('Bearer ')) {
    return sendJson(res, 401, JSON.parse(fixture('openai/error-401-invalid-api-key.json')));
  }
  if (mode === 'revoked')
    return sendJson(res, 401, JSON.parse(fixture('openai/error-401-invalid-api-key.json')));
  if (mode === 'rate_limited') {
    return sendJson(res, 429, JSON.parse(fixture('openai/error-429-rate-limit.json')), {
      'retry-after': '7',
    });
  }
  if (mode === 'down')
    return sendJson(res, 503, JSON.parse(fixture('openai/error-500-server.json')));
  if (path === '/models' && request.method === 'GET') {
    return sendJson(res, 200, JSON.parse(fixture('openai/models-list.json')));
  }
  if (path === '/chat/completions' && request.method === 'POST') {
    if (mode === 'bad_request') {
      return sendJson(res, 400, {
        error: {
          message:
            'max_tokens is too large: 32768. This model supports at most 16384 completion tokens.',
          type: 'invalid_request_error',
          param: 'max_tokens',
          code: null,
        },
      });
    }
    if (mode === 'broken_stream')
      return sendSse(res, fixture('openai/chat-completion-stream-error.sse'));
    return sendSse(res, fixture('openai/chat-completion-stream.sse'));
  }
  return sendJson(res, 404, JSON.parse(fixture('openai/error-404-model-not-found.json')));
}

/** Anthropic's API: `/v1/models`, `/v1/messages`. */
function anthropic(
  path: string,
  request: ProviderRequest,
  res: ServerResponse,
  mode: ProviderMode,
) {
  const error = (status: number, name: string, headers: Record<string, string> = {}) =>
    sendJson(res, status, JSON.parse(fixture(`anthropic/${name}`)), {
      'request-id': 'req_fixture',
      ...headers,
    });
  // The documented header is `x-api-key`; the official SDK (1.x) sends the key as a bearer token.
  const key =
    request.headers['x-api-key'] ?? request.headers.authorization?.replace(/^Bearer /, '');
  if (!key || !request.headers['anthropic-version'])
    return error(401, 'error-401-authentication.json');
  if (mode === 'revoked') return error(401, 'error-401-authentication.json');
  if (mode === 'rate_limited')
    return error(429, 'error-429-rate-limit.json', { 'retry-after': '7' });
  if (mode === 'down') return error(529, 'error-529-overloaded.json');
  if (path === '/v1/models' && request.method === 'GET') {
    return sendJson(res, 200, JSON.parse(fixture('anthropic/models-list.json')));
  }
  if (path === '/v1/messages' && request.method === 'POST') {
    if (mode === 'bad_request') {
      return sendJson(res, 400, {
        type: 'error',
        error: {
          type: 'invalid_request_error',
          message: 'max_tokens: 32768 > 8192, which is the maximum allowed',
        },
      });
    }
    if (mode === 'broken_stream')
      return sendSse(res, fixture('anthropic/messages-stream-overloaded.sse'));
    return sendSse(res, fixture('anthropic/messages-stream.sse'));
  }
  return sendJson(res, 404, {
    type: 'error',
    error: { type: 'not_found_error', message: 'Not found' },
  });
}
