/**
 * A loopback stand-in of the Amazon Bedrock Runtime API, written from its
 * documented wire format rather than from the SDK (so it checks the SDK as
 * much as the service): `Converse` and `InvokeModel` answer JSON,
 * `ConverseStream` answers `application/vnd.amazon.eventstream` (the AWS
 * event-stream binary framing: prelude with lengths and CRC32, typed
 * headers, payload, message CRC32), errors carry `x-amzn-ErrorType`.
 * HTTP/1.1, which is what the service's client speaks (bedrock-connection.ts).
 *
 * Its answers are deterministic: the sentence of the offered sources that
 * shares most words with the question, cited by its number. Its embeddings
 * are hashed bags of words, so questions find the chunks that share words.
 * `behaviour` makes it refuse (access denied, throttling) or break a stream
 * off, as Bedrock can.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32 } from 'node:zlib';

export type BedrockBehaviour =
  | 'normal'
  | 'access-denied'
  | 'throttle'
  /** The stream's connection drops after two deltas. */
  | 'break-stream'
  /** The stream carries a `throttlingException` event after two deltas. */
  | 'throttle-mid-stream';

export interface BedrockCall {
  readonly operation: 'converse' | 'converse-stream' | 'invoke';
  readonly modelId: string;
  readonly body: Record<string, any>;
  /** The SigV4 credential scope's service, from `Authorization`. */
  readonly signedFor: string | null;
  /** The HTTP version the client spoke. */
  readonly httpVersion: string;
}

export interface BedrockRuntimeStandIn {
  readonly url: string;
  /** How the next requests are answered; `normal` until changed. */
  behaviour: BedrockBehaviour;
  /** Models the account has no access to: refused whatever `behaviour` says. */
  readonly deniedModels: Set<string>;
  readonly calls: BedrockCall[];
  close(): Promise<void>;
}

/** Seconds a throttled caller is told to wait. */
export const STAND_IN_RETRY_AFTER_SECONDS = 7;

export async function startBedrockRuntimeStandIn(): Promise<BedrockRuntimeStandIn> {
  const calls: BedrockCall[] = [];
  const state: { behaviour: BedrockBehaviour } = { behaviour: 'normal' };
  const deniedModels = new Set<string>();
  const server = createServer((request, response) => {
    void handle(request, response, state.behaviour, calls, deniedModels).catch((error: unknown) => {
      if (!response.headersSent) {
        sendError(response, 500, 'InternalServerException', String(error));
      } else response.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get behaviour() {
      return state.behaviour;
    },
    set behaviour(value: BedrockBehaviour) {
      state.behaviour = value;
    },
    calls,
    deniedModels,
    close: () => closeServer(server),
  };
}

async function handle(
  request: IncomingMessage,
  response: ServerResponse,
  behaviour: BedrockBehaviour,
  calls: BedrockCall[],
  deniedModels: ReadonlySet<string>,
): Promise<void> {
  const match = /^\/model\/([^/]+)\/(converse|converse-stream|invoke)$/.exec(
    new URL(request.url ?? '/', 'http://stand-in').pathname,
  );
  const raw = await readBody(request);
  if (request.method !== 'POST' || !match?.[1] || !match[2]) {
    sendError(response, 404, 'UnknownOperationException', 'No such operation');
    return;
  }
  const modelId = decodeURIComponent(match[1]);
  const operation = match[2] as BedrockCall['operation'];
  const body = JSON.parse(raw.toString('utf8') || '{}') as Record<string, any>;
  const scope = /Credential=[^/]+\/\d{8}\/[^/]+\/([^/]+)\/aws4_request/.exec(
    request.headers.authorization ?? '',
  );
  calls.push({
    operation,
    modelId,
    body,
    signedFor: scope?.[1] ?? null,
    httpVersion: request.httpVersion,
  });
  if (!scope) {
    sendError(response, 403, 'UnrecognizedClientException', 'The request is not signed');
    return;
  }

  if (behaviour === 'access-denied' || deniedModels.has(modelId)) {
    sendError(
      response,
      403,
      'AccessDeniedException',
      "You don't have access to the model with the specified model ID.",
    );
    return;
  }
  if (behaviour === 'throttle') {
    response.setHeader('Retry-After', String(STAND_IN_RETRY_AFTER_SECONDS));
    sendError(
      response,
      429,
      'ThrottlingException',
      'Too many requests, please wait before trying again.',
    );
    return;
  }

  if (operation === 'invoke') {
    sendJson(response, 200, embeddingAnswer(modelId, body));
    return;
  }
  const text = answerFor(body);
  const inputTokens = Math.ceil(raw.length / 4);
  const outputTokens = Math.ceil(text.length / 4);
  if (operation === 'converse') {
    sendJson(response, 200, {
      output: { message: { role: 'assistant', content: [{ text }] } },
      stopReason: 'end_turn',
      usage: { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens },
      metrics: { latencyMs: 5 },
    });
    return;
  }

  response.writeHead(200, {
    'Content-Type': 'application/vnd.amazon.eventstream',
    'x-amzn-RequestId': createHash('sha256').update(raw).digest('hex').slice(0, 32),
  });
  const pieces = text.match(/\S+\s*/g) ?? [text];
  response.write(event('messageStart', { role: 'assistant' }));
  for (const [index, piece] of pieces.entries()) {
    response.write(event('contentBlockDelta', { contentBlockIndex: 0, delta: { text: piece } }));
    if (behaviour === 'break-stream' && index === 1) {
      // The connection drops mid-answer, with no messageStop, once what was written is sent.
      await new Promise<void>((resolve) => response.write('', () => resolve()));
      await new Promise((resolve) => setTimeout(resolve, 50));
      response.socket?.destroy();
      return;
    }
    if (behaviour === 'throttle-mid-stream' && index === 1) {
      response.end(
        encodeEventStreamMessage(
          {
            ':exception-type': 'throttlingException',
            ':content-type': 'application/json',
            ':message-type': 'exception',
          },
          Buffer.from(JSON.stringify({ message: 'Too many tokens, please wait.' }), 'utf8'),
        ),
      );
      return;
    }
  }
  response.write(event('contentBlockStop', { contentBlockIndex: 0 }));
  response.write(event('messageStop', { stopReason: 'end_turn' }));
  response.write(
    event('metadata', {
      usage: { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens },
      metrics: { latencyMs: 5 },
    }),
  );
  response.end();
}

/**
 * The answer: the sentence of the numbered sources in the last user message
 * that shares most words with its question, cited as `[n]`.
 */
function answerFor(body: Record<string, any>): string {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const last = messages.at(-1)?.content?.[0]?.text;
  if (typeof last !== 'string') return 'I could not find that in the sources.';
  const [sourcesPart = '', question = ''] = last.split(/\n\nQuestion: /);
  const wanted = new Set(words(question));
  let best = { score: -1, sentence: '', number: 0 };
  for (const block of sourcesPart.replace(/^Sources:\n\n/, '').split(/\n\n(?=\[\d+\] )/)) {
    const number = Number(/^\[(\d+)\]/.exec(block)?.[1] ?? 0);
    const body = block.split('\n').slice(1).join(' ');
    for (const sentence of body.split(/(?<=[.!?])\s+/)) {
      const score = words(sentence).filter((word) => wanted.has(word)).length;
      if (number > 0 && score > best.score) best = { score, sentence: sentence.trim(), number };
    }
  }
  return best.number > 0
    ? `${best.sentence.replace(/[.!?]?$/, '')} [${best.number}].`
    : 'I could not find that in the sources.';
}

/** Titan's `{ embedding, inputTextTokenCount }`, or Cohere's `{ embeddings }`. */
function embeddingAnswer(modelId: string, body: Record<string, any>): Record<string, unknown> {
  if (modelId.startsWith('cohere.')) {
    const texts: string[] = Array.isArray(body.texts) ? body.texts : [];
    return {
      id: 'stand-in',
      response_type: 'embeddings_floats',
      texts,
      embeddings: texts.map((text) => hashedVector(text, 1024)),
    };
  }
  const text = String(body.inputText ?? '');
  const dimensions = typeof body.dimensions === 'number' ? body.dimensions : 1024;
  return {
    embedding: hashedVector(text, dimensions),
    inputTextTokenCount: words(text).length,
  };
}

/** A unit vector with one bucket per word (and a small constant, so no text is the zero vector). */
function hashedVector(text: string, dimensions: number): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  vector[0] = 0.01;
  for (const word of words(text)) {
    const bucket = createHash('sha256').update(word).digest().readUInt32BE(0) % dimensions;
    vector[bucket] = (vector[bucket] ?? 0) + 1;
  }
  const length = Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
  return vector.map((value) => value / length);
}

const STOP_WORDS = new Set(['the', 'a', 'an', 'of', 'to', 'do', 'i', 'is', 'for', 'and', 'in']);
function words(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((word) => !STOP_WORDS.has(word));
}

/**
 * One event-stream message: total length and headers length (big-endian
 * 32-bit), the prelude's CRC32, the headers (name length, name, type 7 =
 * string, value length, value), the payload, the whole message's CRC32.
 */
export function encodeEventStreamMessage(
  headers: Readonly<Record<string, string>>,
  payload: Uint8Array,
): Buffer {
  const headerBytes = Buffer.concat(
    Object.entries(headers).map(([name, value]) => {
      const nameBytes = Buffer.from(name, 'utf8');
      const valueBytes = Buffer.from(value, 'utf8');
      const header = Buffer.alloc(1 + nameBytes.length + 1 + 2 + valueBytes.length);
      header.writeUInt8(nameBytes.length, 0);
      nameBytes.copy(header, 1);
      header.writeUInt8(7, 1 + nameBytes.length);
      header.writeUInt16BE(valueBytes.length, 2 + nameBytes.length);
      valueBytes.copy(header, 4 + nameBytes.length);
      return header;
    }),
  );
  const total = 12 + headerBytes.length + payload.length + 4;
  const message = Buffer.alloc(total);
  message.writeUInt32BE(total, 0);
  message.writeUInt32BE(headerBytes.length, 4);
  message.writeUInt32BE(crc32(message.subarray(0, 8)), 8);
  headerBytes.copy(message, 12);
  Buffer.from(payload).copy(message, 12 + headerBytes.length);
  message.writeUInt32BE(crc32(message.subarray(0, total - 4)), total - 4);
  return message;
}

function event(type: string, payload: Record<string, unknown>): Buffer {
  return encodeEventStreamMessage(
    { ':event-type': type, ':content-type': 'application/json', ':message-type': 'event' },
    Buffer.from(JSON.stringify(payload), 'utf8'),
  );
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
  });
  response.end(text);
}

function sendError(response: ServerResponse, status: number, type: string, message: string): void {
  response.setHeader(
    'x-amzn-ErrorType',
    `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
  );
  sendJson(response, status, { message });
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve, reject) =>
    server.close((error) => (error ? reject(error) : resolve())),
  );
}
