import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import * as z from 'zod/mini';
import { listen } from './listen';
import { verifyDelivery } from './webhook-verification';

/** The receiver only ever listens on this machine. */
export const LISTENER_HOST = '127.0.0.1';
/** The path the registered webhook URL points at (any path is accepted). */
export const LISTENER_PATH = '/webhook';
/** Bodies above this are refused with 413 (the service's events are far smaller). */
export const MAX_BODY_BYTES = 1024 * 1024;
/** How long each call to the API may take before the listener gives up. */
const API_TIMEOUT_MS = 10_000;

export const ALLOW_PRIVATE_URLS_HINT =
  'Hint: start the server with SVC_ALLOW_PRIVATE_URLS=true npm start (without it the server refuses loopback webhook URLs such as this one).';

/** Register a webhook through the running API, and delete it on close. */
export interface RegisterMode {
  readonly kind: 'register';
  /** The API's base URL, e.g. `http://127.0.0.1:3000`. */
  readonly api: string;
  /** An Admin API key (webhooks are Admin scope). */
  readonly key: string;
  readonly events: readonly string[];
}

/** Only receive and verify, for a webhook that already exists and points at `--port`. */
export interface SecretMode {
  readonly kind: 'secret';
  readonly secret: string;
}

export interface WebhookListenerOptions {
  readonly mode: RegisterMode | SecretMode;
  /** 0 picks a free port. */
  readonly port: number;
  /** Print each verified delivery's body (pretty JSON) under its line. */
  readonly printJson?: boolean;
  readonly out?: (line: string) => void;
  /** The time verification uses (replay window); the system clock unless a test moves it. */
  readonly now?: () => Date;
}

export type DeliveryOutcome = 'verified' | 'duplicate' | 'rejected';

/** One POST the receiver answered. */
export interface ReceivedDelivery {
  readonly receivedAt: Date;
  readonly outcome: DeliveryOutcome;
  /** What the receiver answered: 200 verified or duplicate, 400 rejected, 413 too large. */
  readonly status: number;
  /** Why it was rejected, else `null`. */
  readonly reason: string | null;
  readonly eventId: string | null;
  readonly eventType: string | null;
  readonly deliveryId: string | null;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** The parsed envelope of a verified delivery, else `null`. */
  readonly envelope: Readonly<Record<string, unknown>> | null;
}

export interface WebhookListener {
  /** The receiver's URL, the one registered. */
  readonly url: string;
  readonly port: number;
  /** The webhook registered for this listener; `null` in secret mode. */
  readonly webhookId: string | null;
  readonly secret: string;
  /** Every POST answered so far, in order of arrival. */
  readonly received: readonly ReceivedDelivery[];
  /** Resolves with the first delivery (past or future) that `predicate` accepts; rejects after `timeoutMs`. */
  waitFor(
    predicate: (delivery: ReceivedDelivery) => boolean,
    timeoutMs?: number,
  ): Promise<ReceivedDelivery>;
  /**
   * Deletes the webhook it registered (none in secret mode), then stops the
   * receiver. The receiver is stopped even when the deletion fails; the
   * failure is then thrown, naming the webhook to delete by hand.
   */
  close(): Promise<void>;
}

/** The API refused or could not be reached; the message says what to do. */
export class ListenerError extends Error {}

const created = z.object({ id: z.string(), secret: z.string(), events: z.array(z.string()) });
const apiError = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    details: z.optional(
      z.object({
        fields: z.optional(z.array(z.object({ path: z.string(), message: z.string() }))),
      }),
    ),
  }),
});

/**
 * `npx svc webhooks listen` in-process: starts a receiver on 127.0.0.1,
 * registers a webhook pointing at it (register mode) or takes the given
 * secret (secret mode), and prints one line per delivery. Each delivery is
 * verified ({@link verifyDelivery}) and answered 200 when valid, 400 when
 * not; a repeated event id (the same event may come twice) is answered
 * 200 and printed as a duplicate.
 */
export async function startWebhookListener(
  options: WebhookListenerOptions,
): Promise<WebhookListener> {
  const out = options.out ?? ((line: string) => console.log(line));
  const now = options.now ?? (() => new Date());
  const received: ReceivedDelivery[] = [];
  const waiters = new Set<(delivery: ReceivedDelivery) => void>();
  const seen = new Set<string>();
  let secret: string | null = options.mode.kind === 'secret' ? options.mode.secret : null;

  const record = (delivery: ReceivedDelivery) => {
    received.push(delivery);
    out(describeDelivery(delivery));
    // A duplicate's body is the one already printed.
    if (options.printJson && delivery.outcome === 'verified' && delivery.envelope) {
      out(JSON.stringify(delivery.envelope, null, 2));
    }
    for (const waiter of waiters) waiter(delivery);
  };

  const server = createServer((request, response) => {
    receive(request, response).catch((error: unknown) => {
      out(`Receiver error: ${error instanceof Error ? error.message : String(error)}`);
      if (!response.headersSent) answer(response, 500, 'receiver error');
    });
  });

  async function receive(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (request.method !== 'POST') {
      response.setHeader('Allow', 'POST');
      answer(response, 405, 'POST deliveries here');
      return;
    }
    const body = await readBody(request);
    const receivedAt = now();
    const headers = flatHeaders(request.headers);
    const base = {
      receivedAt,
      headers,
      eventType: headers['x-svc-event'] ?? null,
      deliveryId: headers['x-svc-delivery'] ?? null,
      eventId: headers['webhook-id'] ?? null,
    };
    if (body === null) {
      answer(response, 413, 'body too large');
      record({
        ...base,
        outcome: 'rejected',
        status: 413,
        reason: 'body too large',
        body: '',
        envelope: null,
      });
      return;
    }
    const text = body.toString('utf8');
    // Before a secret exists (register mode, between listening and registering) nothing can verify.
    const verdict = secret
      ? verifyDelivery(body, headers, secret, receivedAt)
      : { ok: false as const, reason: 'no secret yet' };
    const envelope = verdict.ok ? parseEnvelope(text) : null;
    if (!verdict.ok || !envelope) {
      const reason = verdict.ok ? 'body is not a JSON event envelope' : verdict.reason;
      answer(response, 400, reason);
      record({ ...base, outcome: 'rejected', status: 400, reason, body: text, envelope: null });
      return;
    }
    const eventId = typeof envelope.id === 'string' ? envelope.id : verdict.eventId;
    const duplicate = seen.has(eventId);
    seen.add(eventId);
    answer(response, 200, duplicate ? 'duplicate' : 'ok');
    record({
      ...base,
      eventId,
      eventType: typeof envelope.type === 'string' ? envelope.type : base.eventType,
      outcome: duplicate ? 'duplicate' : 'verified',
      status: 200,
      reason: null,
      body: text,
      envelope,
    });
  }

  const address = await listen(server, options.port, LISTENER_HOST);
  const url = `http://${LISTENER_HOST}:${address.port}${LISTENER_PATH}`;
  const stopServer = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });

  let webhookId: string | null = null;
  if (options.mode.kind === 'register') {
    try {
      const webhook = await registerWebhook(options.mode, url);
      webhookId = webhook.id;
      secret = webhook.secret;
      out(`Registered webhook ${webhook.id} for ${webhook.events.length} event type(s) → ${url}`);
      out(`Signing secret (shown once): ${webhook.secret}`);
    } catch (error) {
      await stopServer();
      throw error;
    }
  } else {
    out(`Receiving on ${url} (secret mode: no webhook registered)`);
  }
  out(
    `Ready: verifying X-Svc-Signature and webhook-signature; Ctrl-C to stop${webhookId ? ' (deletes the webhook)' : ''}.`,
  );

  let closing: Promise<void> | null = null;
  const mode = options.mode;
  return {
    url,
    port: address.port,
    webhookId,
    secret: secret ?? '',
    received,
    waitFor(predicate, timeoutMs = 10_000) {
      const found = received.find(predicate);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const waiter = (delivery: ReceivedDelivery) => {
          if (!predicate(delivery)) return;
          clearTimeout(timer);
          waiters.delete(waiter);
          resolve(delivery);
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`No matching delivery within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
    close() {
      closing ??= (async () => {
        let failure: unknown = null;
        if (mode.kind === 'register' && webhookId) {
          try {
            await deleteWebhook(mode, webhookId);
            out(`Deleted webhook ${webhookId}`);
          } catch (error) {
            failure = error;
          }
        }
        await stopServer();
        if (failure) {
          const reason = failure instanceof Error ? failure.message : String(failure);
          throw new ListenerError(
            `Could not delete webhook ${webhookId}: ${reason}\nDelete it with: curl -X DELETE <api>/api/v1/webhooks/${webhookId} -H "Authorization: Bearer <key>"`,
          );
        }
      })();
      return closing;
    },
  };
}

/** POST /api/v1/webhooks; turns the API's refusals into messages that say what to do. */
async function registerWebhook(mode: RegisterMode, url: string): Promise<z.infer<typeof created>> {
  const response = await callApi(mode, 'POST', '/api/v1/webhooks', {
    url,
    events: mode.events,
    description: `npx svc webhooks listen (pid ${process.pid})`,
  });
  const body = await response.json().catch(() => null);
  if (response.status === 201) {
    const parsed = created.safeParse(body);
    if (parsed.success) return parsed.data;
    throw new ListenerError('The API answered 201 without a webhook id and secret');
  }
  const error = apiError.safeParse(body);
  const message = error.success ? error.data.error.message : `HTTP ${response.status}`;
  const urlRefused =
    response.status === 400 &&
    error.success &&
    (error.data.error.details?.fields ?? []).some((field) => field.path === 'url');
  if (urlRefused) {
    throw new ListenerError(
      `The server refused the listener's URL ${url}: ${message}\n${ALLOW_PRIVATE_URLS_HINT}`,
    );
  }
  if (response.status === 401) throw new ListenerError(`The API key was refused: ${message}`);
  if (response.status === 403) {
    throw new ListenerError(`The API key may not manage webhooks (Admin scope needed): ${message}`);
  }
  throw new ListenerError(`Registering the webhook failed (${response.status}): ${message}`);
}

/** DELETE /api/v1/webhooks/:id; a webhook already gone counts as deleted. */
async function deleteWebhook(mode: RegisterMode, id: string): Promise<void> {
  const response = await callApi(mode, 'DELETE', `/api/v1/webhooks/${encodeURIComponent(id)}`);
  await response.arrayBuffer().catch(() => undefined);
  if (response.status !== 204 && response.status !== 404) {
    throw new ListenerError(`the API answered ${response.status}`);
  }
}

async function callApi(
  mode: RegisterMode,
  method: string,
  path: string,
  body?: unknown,
): Promise<Response> {
  const target = `${mode.api.replace(/\/+$/, '')}${path}`;
  try {
    return await fetch(target, {
      method,
      headers: {
        authorization: `Bearer ${mode.key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(API_TIMEOUT_MS),
    });
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw new ListenerError(
      `Could not reach the API at ${mode.api} (${reason}): is \`npm start\` running there? (--api sets the address)`,
    );
  }
}

/** The body, or `null` when it exceeds {@link MAX_BODY_BYTES}. */
function readBody(request: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) tooLarge = true;
      else chunks.push(chunk);
    });
    request.on('end', () => resolve(tooLarge ? null : Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

function flatHeaders(headers: IncomingMessage['headers']): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

function parseEnvelope(text: string): Record<string, unknown> | null {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

function answer(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' });
  response.end(`${text}\n`);
}

/** One readable line: time, event type, event id, delivery id, verdict and answer. */
export function describeDelivery(delivery: ReceivedDelivery): string {
  const verdict =
    delivery.outcome === 'rejected'
      ? `REJECTED (${delivery.reason}) → ${delivery.status}`
      : `${delivery.outcome} → ${delivery.status}`;
  return [
    delivery.receivedAt.toISOString(),
    delivery.eventType ?? '-',
    delivery.eventId ?? '-',
    delivery.deliveryId ?? '-',
    verdict,
  ].join('  ');
}
