/**
 * Webhook receivers for the end-to-end tests: real node:http / node:https
 * servers on 127.0.0.1 (the loopback servers of test/integration/net), whose
 * answer can be changed between attempts, and which keep every request's raw
 * body bytes and headers for the signature checks.
 */
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import {
  type LocalReceiver,
  type ReceivedRequest,
  type ServerCertificate,
  startHttpReceiver,
  startHttpsReceiver,
} from '../integration/net/local-receivers';

export { closedPort, TEST_CA } from '../integration/net/local-receivers';

/** How the receiver answers one request. */
export type Answer =
  | { readonly kind: 'status'; readonly status: number; readonly headers?: Record<string, string> }
  /** Never answers: the dispatcher's timeout has to end the attempt. */
  | { readonly kind: 'hang' }
  /** Destroys the connection after reading the request, without a response. */
  | { readonly kind: 'destroy' };

export const answers = {
  ok: { kind: 'status', status: 200 },
  status: (status: number, headers?: Record<string, string>): Answer =>
    headers ? { kind: 'status', status, headers } : { kind: 'status', status },
  hang: { kind: 'hang' },
  destroy: { kind: 'destroy' },
} as const satisfies Record<string, Answer | ((...args: never[]) => Answer)>;

/** One request as the receiver got it. */
export interface Receipt {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** The raw body bytes, exactly as they arrived. */
  readonly raw: Buffer;
  /** The body parsed as JSON (the envelope). */
  readonly envelope: Record<string, any>;
  /** What the receiver answered. */
  readonly answer: Answer;
}

export interface WebhookReceiver {
  readonly port: number;
  /** Every request whose body arrived completely, in order. */
  readonly receipts: Receipt[];
  url(path?: string): string;
  /** Answers every following request this way. */
  answerWith(answer: Answer): void;
  /** Answers the next requests with these, in order, then with the current default again. */
  answerNext(...answers: Answer[]): void;
  /** TCP connections accepted so far (TLS handshakes included). */
  connections(): number;
  /** Receipts per event id (`webhook-id`). */
  countsByEvent(): Map<string, number>;
  close(): Promise<void>;
}

/** A receiver over plain http (`tls` omitted) or https with one of the fixture certificates. */
export async function startWebhookReceiver(
  options: { readonly tls?: ServerCertificate; readonly answer?: Answer } = {},
): Promise<WebhookReceiver> {
  let standing: Answer = options.answer ?? answers.ok;
  const queued: Answer[] = [];
  const receipts: Receipt[] = [];
  const respond = (request: ReceivedRequest, res: ServerResponse) => {
    const answer = queued.shift() ?? standing;
    receipts.push({
      method: request.method,
      path: request.url,
      headers: request.headers,
      raw: request.body,
      envelope: parseJson(request.body),
      answer,
    });
    switch (answer.kind) {
      case 'status':
        res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
        res.end('ok');
        return;
      case 'hang':
        return;
      case 'destroy':
        res.socket?.destroy();
        return;
    }
  };
  const server: LocalReceiver = options.tls
    ? await startHttpsReceiver(options.tls, respond)
    : await startHttpReceiver(respond);
  return {
    port: server.port,
    receipts,
    url: (path = '/hook') => server.url(path),
    answerWith: (answer) => {
      standing = answer;
    },
    answerNext: (...next) => {
      queued.push(...next);
    },
    connections: () => server.connections(),
    countsByEvent: () => {
      const counts = new Map<string, number>();
      for (const receipt of receipts) {
        const id = String(receipt.headers['webhook-id']);
        counts.set(id, (counts.get(id) ?? 0) + 1);
      }
      return counts;
    },
    close: () => server.close(),
  };
}

function parseJson(raw: Buffer): Record<string, any> {
  try {
    return JSON.parse(raw.toString('utf8')) as Record<string, any>;
  } catch {
    return {};
  }
}
