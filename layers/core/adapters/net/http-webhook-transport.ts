import { type ClientRequest, request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import { classifyAddress } from '../../domain/public-address';
import type {
  UrlCheck,
  WebhookAttemptResult,
  WebhookRequest,
  WebhookTransport,
  WebhookUrlVerifier,
} from '../../ports/webhook-transport.port';
import { checkTlsCertificate } from './certificate-check';
import { describeConnectionError } from './connection-error';
import { type OutboundPolicy, trustedCertificates } from './outbound-policy';
import {
  checkLiteralHost,
  checkOutboundUrl,
  guardedLookup,
  hostOf,
  parseOutboundUrl,
} from './url-guard';

/**
 * The most of a response body that is read. Receivers' bodies are not used;
 * reading a little lets a small response finish cleanly, and the cap keeps a
 * hostile receiver from streaming into the dispatcher's memory or time.
 */
export const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * Sends webhook deliveries over node:http(s), under the SSRF rules:
 *
 * - the URL is parsed and its scheme checked again, IP-literal hosts are
 *   checked, and names are resolved by the guarded lookup at connect time;
 * - no redirects are followed (a 3xx is a failed attempt);
 * - one deadline, `timeoutMs`, covers DNS, connect, TLS, response headers and
 *   reading the body; when it passes the request is destroyed;
 * - at most {@link MAX_RESPONSE_BYTES} of the body are read, then discarded;
 * - every delivery has its own connection (no keep-alive): deliveries are
 *   spread out in time, and a pooled socket would skip the connect-time check.
 *
 * Never throws: failures come back as `error` strings without bodies or
 * header values.
 */
export class HttpWebhookTransport implements WebhookTransport {
  readonly #policy: OutboundPolicy;
  readonly #ca: string[] | undefined;

  constructor(policy: OutboundPolicy) {
    this.#policy = policy;
    this.#ca = trustedCertificates(policy);
  }

  async post(request: WebhookRequest): Promise<WebhookAttemptResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const failed = (error: string): WebhookAttemptResult => ({
      statusCode: null,
      durationMs: elapsed(),
      error,
    });

    const parsed = parseOutboundUrl(request.url, this.#policy);
    if (!parsed.ok) return failed(parsed.reason);
    const { url } = parsed;
    const host = hostOf(url);
    const refusal = checkLiteralHost(host, this.#policy);
    if (refusal) return failed(refusal.message);

    return new Promise<WebhookAttemptResult>((resolve) => {
      let outgoing: ClientRequest | undefined;
      let settled = false;
      const finish = (statusCode: number | null, error: string | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        outgoing?.destroy();
        resolve({ statusCode, durationMs: elapsed(), error });
      };
      const timer = setTimeout(
        () => finish(null, `timeout after ${request.timeoutMs} ms`),
        request.timeoutMs,
      );

      const onResponse = (response: IncomingMessage) => {
        const statusCode = response.statusCode ?? null;
        let received = 0;
        response.on('data', (chunk: Buffer) => {
          received += chunk.length;
          // Enough read: the status is what counts; the rest is not worth waiting for.
          if (received >= MAX_RESPONSE_BYTES) finish(statusCode, null);
        });
        response.on('end', () => finish(statusCode, null));
        response.on('error', (error) => finish(null, describeResponseError(error)));
        response.on('close', () => {
          if (!response.complete) finish(null, 'connection closed while reading the response');
        });
      };

      try {
        const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
        outgoing = send(
          {
            method: 'POST',
            protocol: url.protocol,
            host,
            port: url.port === '' ? undefined : Number(url.port),
            path: `${url.pathname}${url.search}`,
            headers: withContentLength(request.headers, request.body),
            // A fresh agent per request: no pooling, `Connection: close`.
            agent: false,
            lookup: guardedLookup(this.#policy),
            servername: isIP(host) === 0 ? host : undefined,
            rejectUnauthorized: true,
            ca: this.#ca,
          },
          onResponse,
        );
        outgoing.on('error', (error) => finish(null, describeConnectionError(error)));
        outgoing.end(request.body);
      } catch (error) {
        // Synchronous refusals from node:http (bad header name or value).
        finish(null, describeConnectionError(error));
      }
    });
  }
}

export interface TlsWebhookUrlVerifierOptions {
  /** Deadline for DNS during the URL check. @default 5000 */
  readonly resolveTimeoutMs?: number;
  /** Deadline for connect and TLS handshake. @default 5000 */
  readonly handshakeTimeoutMs?: number;
}

const VERIFIER_DEFAULTS = { resolveTimeoutMs: 5_000, handshakeTimeoutMs: 5_000 } as const;

/**
 * Checks a webhook URL when it is registered or changed — `https`, every
 * address public, and a certificate that passes full verification. With
 * `SVC_ALLOW_PRIVATE_URLS` (local runs) `http` is accepted as well, but only
 * for a host that resolves to loopback alone, so a local receiver can be used
 * without a certificate and nothing else can.
 *
 * @example
 * const verifier = new TlsWebhookUrlVerifier(webhookPolicy);
 * await verifier.verify('http://hooks.example.com/x'); // { ok: false, reason: 'scheme http is not allowed (allowed: https)' }
 */
export class TlsWebhookUrlVerifier implements WebhookUrlVerifier {
  readonly #policy: OutboundPolicy;
  readonly #options: Required<TlsWebhookUrlVerifierOptions>;

  constructor(policy: OutboundPolicy, options: TlsWebhookUrlVerifierOptions = {}) {
    this.#policy = policy;
    this.#options = {
      resolveTimeoutMs: options.resolveTimeoutMs ?? VERIFIER_DEFAULTS.resolveTimeoutMs,
      handshakeTimeoutMs: options.handshakeTimeoutMs ?? VERIFIER_DEFAULTS.handshakeTimeoutMs,
    };
  }

  async verify(url: string): Promise<UrlCheck> {
    const check = await checkOutboundUrl(url, this.#policy, this.#options.resolveTimeoutMs);
    if (!check.ok) return check;
    if (check.url.protocol === 'https:') {
      return checkTlsCertificate(check.url, this.#policy, this.#options.handshakeTimeoutMs);
    }
    // Plain http only by explicit local configuration, and only to this machine.
    const loopbackOnly = check.addresses.every(
      (address) => classifyAddress(address).range === 'loopback',
    );
    return this.#policy.allowPrivateAddresses && loopbackOnly
      ? { ok: true }
      : { ok: false, reason: 'webhook URLs must use https (http only for a local receiver)' };
  }
}

/** The caller's headers with `Content-Length` set from the exact body bytes. */
function withContentLength(
  headers: Readonly<Record<string, string>>,
  body: string,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() !== 'content-length') out[name] = value;
  }
  out['Content-Length'] = String(Buffer.byteLength(body, 'utf8'));
  return out;
}

function describeResponseError(error: unknown): string {
  // Node reports a connection lost mid-body as ECONNRESET `aborted`.
  return (error as { code?: unknown }).code === 'ECONNRESET'
    ? 'connection closed while reading the response'
    : describeConnectionError(error);
}
