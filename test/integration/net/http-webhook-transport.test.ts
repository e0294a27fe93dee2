import type { ServerResponse } from 'node:http';
import {
  HttpWebhookTransport,
  MAX_RESPONSE_BYTES,
  TlsWebhookUrlVerifier,
} from '../../../layers/core/adapters/net/http-webhook-transport';
import { type Resolver, webhookPolicy } from '../../../layers/core/adapters/net/outbound-policy';
import { checkOutboundUrl } from '../../../layers/core/adapters/net/url-guard';
import type { WebhookRequest } from '../../../layers/core/ports/webhook-transport.port';
import {
  closedPort,
  type LocalReceiver,
  type Respond,
  startHttpReceiver,
  startHttpsReceiver,
  startSilentTcpServer,
  TEST_CA,
} from './local-receivers';

/** The deadline of the tests about timing out: the receiver never answers, so no load makes it flaky. */
const TIMEOUT_MS = 300;
/**
 * The deadline of every other delivery: one that answers must not fail for a
 * busy machine (a 2-core CI runner took over 300 ms to answer a loopback
 * request), and only a hang would reach it.
 */
const ANSWERED_WITHIN_MS = 30_000;

const resolvesTo =
  (...addresses: string[]): Resolver =>
  async () =>
    addresses;

/** Local receivers are on loopback, so deliveries run with SVC_ALLOW_PRIVATE_URLS semantics. */
const localPolicy = webhookPolicy({ allowPrivateAddresses: true, extraCaCertificates: [TEST_CA] });

const BODY = JSON.stringify({
  id: 'evt_01JABCDEF',
  type: 'datasource.processed',
  data: { name: 'Café — ✓ 🚀', note: 'line\nbreak "quoted"' },
});
const HEADERS = {
  'Content-Type': 'application/json',
  'X-Svc-Signature': 'a'.repeat(64),
  'X-Svc-Event': 'datasource.processed',
  'X-Svc-Delivery': 'dlv_01JABCDEF',
  'webhook-id': 'evt_01JABCDEF',
  'webhook-timestamp': '1700000000',
  'webhook-signature': 'v1,c2lnbmF0dXJl v1,b2xkLXNpZw==',
};

const delivery = (url: string, overrides: Partial<WebhookRequest> = {}): WebhookRequest => ({
  url,
  body: BODY,
  headers: HEADERS,
  timeoutMs: ANSWERED_WITHIN_MS,
  ...overrides,
});

describe('Class: HttpWebhookTransport', () => {
  const receivers: { close(): Promise<void> }[] = [];
  const https = async (
    respond: Respond,
    certificate: 'localhost' | 'self-signed' = 'localhost',
  ) => {
    const receiver = await startHttpsReceiver(certificate, respond);
    receivers.push(receiver);
    return receiver;
  };
  const status = (code: number, headers: Record<string, string> = {}) => {
    return (_request: unknown, res: ServerResponse) => res.writeHead(code, headers).end();
  };
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
  });

  it('delivers the exact body bytes and headers as one POST', async () => {
    const receiver = await https(status(204));
    const transport = new HttpWebhookTransport(localPolicy);

    const result = await transport.post(delivery(receiver.url('/hooks/in?source=svc')));

    expect(result).toEqual({ statusCode: 204, durationMs: expect.any(Number), error: null });
    expect(receiver.received).toHaveLength(1);
    const [received] = receiver.received;
    expect(received?.method).toBe('POST');
    expect(received?.url).toBe('/hooks/in?source=svc');
    expect(received?.body.equals(Buffer.from(BODY, 'utf8'))).toBe(true);
    for (const [name, value] of Object.entries(HEADERS)) {
      expect(received?.headers[name.toLowerCase()]).toBe(value);
    }
    expect(received?.headers['content-length']).toBe(String(Buffer.byteLength(BODY)));
    expect(received?.headers.connection).toBe('close');
  });

  it('sets Content-Length from the body, whatever the caller put there', async () => {
    const receiver = await https(status(200));

    await new HttpWebhookTransport(localPolicy).post(
      delivery(receiver.url(), { headers: { ...HEADERS, 'content-length': '1' } }),
    );

    expect(receiver.received[0]?.body.toString('utf8')).toBe(BODY);
  });

  it.each([200, 202, 400, 410, 500, 503])('reports status %i as it is', async (code) => {
    const receiver = await https(status(code));

    const result = await new HttpWebhookTransport(localPolicy).post(delivery(receiver.url()));

    expect(result).toMatchObject({ statusCode: code, error: null });
  });

  it('does not follow a redirect (D29: a 3xx is a failed attempt)', async () => {
    const receiver = await https((request, res) =>
      request.url === '/hook'
        ? res.writeHead(301, { Location: '/elsewhere' }).end()
        : res.writeHead(200).end(),
    );

    const result = await new HttpWebhookTransport(localPolicy).post(delivery(receiver.url()));

    expect(result).toMatchObject({ statusCode: 301, error: null });
    expect(receiver.received.map((request) => request.url)).toEqual(['/hook']);
  });

  it('times out a receiver that never answers', async () => {
    const receiver = await https(() => undefined);

    const result = await new HttpWebhookTransport(localPolicy).post(
      delivery(receiver.url(), { timeoutMs: TIMEOUT_MS }),
    );

    expect(result).toEqual({
      statusCode: null,
      durationMs: expect.any(Number),
      error: `timeout after ${TIMEOUT_MS} ms`,
    });
    expect(result.durationMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
  });

  it('times out a receiver that sends headers and then stalls the body', async () => {
    const receiver = await https((_request, res) => {
      res.writeHead(200, { 'Content-Length': '100' });
      res.write('partial');
    });

    const result = await new HttpWebhookTransport(localPolicy).post(
      delivery(receiver.url(), { timeoutMs: TIMEOUT_MS }),
    );

    expect(result).toMatchObject({ statusCode: null, error: `timeout after ${TIMEOUT_MS} ms` });
  });

  it('times out a server that never completes the TLS handshake', async () => {
    const silent = await startSilentTcpServer();
    receivers.push(silent);

    const result = await new HttpWebhookTransport(localPolicy).post(
      delivery(`https://127.0.0.1:${silent.port}/hook`, { timeoutMs: TIMEOUT_MS }),
    );

    expect(result).toMatchObject({ statusCode: null, error: `timeout after ${TIMEOUT_MS} ms` });
    expect(result.durationMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
  });

  it('reports a receiver that destroys the connection', async () => {
    const receiver = await https((_request, res) => res.socket?.destroy());

    const result = await new HttpWebhookTransport(localPolicy).post(delivery(receiver.url()));

    // A reset or an orderly close, depending on what reaches the client first.
    expect(result).toMatchObject({
      statusCode: null,
      error: expect.stringMatching(/^connection (reset|closed before a response)$/),
    });
  });

  it('reports a receiver that closes the connection without answering', async () => {
    const receiver = await startHttpReceiver((_request, res) => res.socket?.end());
    receivers.push(receiver);

    const result = await new HttpWebhookTransport(localPolicy).post(delivery(receiver.url()));

    expect(result).toMatchObject({
      statusCode: null,
      error: 'connection closed before a response',
    });
  });

  it('reports a connection lost in the middle of the response body', async () => {
    const receiver = await https((_request, res) => {
      res.writeHead(200, { 'Content-Length': '1000' });
      res.write('partial', () => res.socket?.destroy());
    });

    const result = await new HttpWebhookTransport(localPolicy).post(delivery(receiver.url()));

    expect(result).toMatchObject({
      statusCode: null,
      error: 'connection closed while reading the response',
    });
  });

  it('stops reading a large response body after the cap', async () => {
    const chunk = Buffer.alloc(16 * 1024, 'x');
    const total = 64 * 1024 * 1024;
    let written = 0;
    let closedEarly = false;
    let responseClosed: () => void = () => undefined;
    const closed = new Promise<void>((resolve) => {
      responseClosed = resolve;
    });
    const receiver = await https((_request, res) => {
      res.writeHead(200, { 'Content-Length': String(total) });
      res.on('close', () => {
        closedEarly = written < total;
        responseClosed();
      });
      const pump = () => {
        while (written < total && !res.destroyed) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    });

    const result = await new HttpWebhookTransport(localPolicy).post(delivery(receiver.url()));
    await closed;

    // It stopped on the cap, not on its timeout (which would be its error), and the receiver
    // wrote a fraction of the body.
    expect(result).toMatchObject({ statusCode: 200, error: null });
    expect(closedEarly).toBe(true);
    expect(written).toBeLessThan(total / 4);
    expect(MAX_RESPONSE_BYTES).toBe(64 * 1024);
  });

  it('reports a self-signed certificate', async () => {
    const receiver = await https(status(200), 'self-signed');

    const result = await new HttpWebhookTransport(localPolicy).post(delivery(receiver.url()));

    expect(result).toMatchObject({
      statusCode: null,
      error: 'certificate rejected: DEPTH_ZERO_SELF_SIGNED_CERT',
    });
    expect(receiver.received).toHaveLength(0);
  });

  it('reports a certificate from a CA that is not trusted', async () => {
    const receiver = await https(status(200));
    const transport = new HttpWebhookTransport(webhookPolicy({ allowPrivateAddresses: true }));

    const result = await transport.post(delivery(receiver.url()));

    expect(result).toMatchObject({
      statusCode: null,
      error: 'certificate rejected: UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    });
  });

  it('reports a refused connection', async () => {
    const port = await closedPort();

    const result = await new HttpWebhookTransport(localPolicy).post(
      delivery(`https://127.0.0.1:${port}/hook`),
    );

    expect(result).toMatchObject({ statusCode: null, error: 'connection refused' });
  });

  describe('D35 address rules', () => {
    it('refuses a loopback address without connecting', async () => {
      const receiver = await https(status(200));
      const transport = new HttpWebhookTransport(webhookPolicy({ extraCaCertificates: [TEST_CA] }));

      const result = await transport.post(delivery(receiver.url()));

      expect(result).toMatchObject({
        statusCode: null,
        error: 'address 127.0.0.1 is not public (loopback)',
      });
      expect(receiver.connections()).toBe(0);
    });

    it('refuses at connect time a name that rebinds to loopback after the URL check', async () => {
      const receiver = await https(status(200));
      let lookups = 0;
      const policy = webhookPolicy({
        extraCaCertificates: [TEST_CA],
        resolve: async () => (lookups++ === 0 ? ['93.184.216.34'] : ['127.0.0.1']),
      });
      const url = `https://localhost:${receiver.port}/hook`;

      const check = await checkOutboundUrl(url, policy);
      const result = await new HttpWebhookTransport(policy).post(delivery(url));

      expect(check.ok).toBe(true);
      expect(result).toMatchObject({
        statusCode: null,
        error: 'address 127.0.0.1 is not public (loopback)',
      });
      expect(receiver.connections()).toBe(0);
    });

    it('refuses http unless the policy allows it', async () => {
      const result = await new HttpWebhookTransport(webhookPolicy()).post(
        delivery('http://hooks.example.test/hook'),
      );

      expect(result).toMatchObject({
        statusCode: null,
        error: 'scheme http is not allowed (allowed: https)',
      });
    });
  });

  it('delivers over plain http to a local receiver when private addresses are allowed', async () => {
    const receiver = await startHttpReceiver((_request, res) => res.writeHead(200).end());
    receivers.push(receiver);

    const result = await new HttpWebhookTransport(localPolicy).post(delivery(receiver.url()));

    expect(result).toMatchObject({ statusCode: 200, error: null });
    expect(receiver.received[0]?.body.toString('utf8')).toBe(BODY);
  });

  it('turns an invalid header into a result instead of throwing, without echoing it', async () => {
    const receiver = await https(status(200));

    const result = await new HttpWebhookTransport(localPolicy).post(
      delivery(receiver.url(), { headers: { 'X-Secret': 'value\r\nInjected: yes' } }),
    );

    expect(result).toMatchObject({ statusCode: null, error: 'invalid request header' });
    expect(receiver.received).toHaveLength(0);
  });

  it('turns a malformed URL into a result', async () => {
    const result = await new HttpWebhookTransport(localPolicy).post(delivery('not a url'));

    expect(result).toEqual({
      statusCode: null,
      durationMs: expect.any(Number),
      error: 'not a valid URL',
    });
  });
});

describe('Class: TlsWebhookUrlVerifier', () => {
  let caSigned: LocalReceiver;
  let selfSigned: LocalReceiver;
  let plain: LocalReceiver;

  beforeAll(async () => {
    [caSigned, selfSigned, plain] = await Promise.all([
      startHttpsReceiver('localhost', (_request, res) => res.end()),
      startHttpsReceiver('self-signed', (_request, res) => res.end()),
      startHttpReceiver((_request, res) => res.end()),
    ]);
  });
  afterAll(() => Promise.all([caSigned.close(), selfSigned.close(), plain.close()]));

  it('accepts an https URL with a valid certificate', async () => {
    const verifier = new TlsWebhookUrlVerifier(localPolicy);

    await expect(verifier.verify(caSigned.url())).resolves.toEqual({ ok: true });
    // A certificate check sends no request.
    expect(caSigned.received).toHaveLength(0);
  });

  it('refuses an https URL with a self-signed certificate', async () => {
    const verifier = new TlsWebhookUrlVerifier(localPolicy);

    await expect(verifier.verify(selfSigned.url())).resolves.toEqual({
      ok: false,
      reason: 'certificate rejected: DEPTH_ZERO_SELF_SIGNED_CERT',
    });
  });

  it('refuses loopback receivers by default', async () => {
    const verifier = new TlsWebhookUrlVerifier(webhookPolicy({ extraCaCertificates: [TEST_CA] }));

    await expect(verifier.verify(caSigned.url())).resolves.toEqual({
      ok: false,
      reason: 'address 127.0.0.1 is not public (loopback)',
    });
  });

  it('accepts http://localhost only when private addresses are allowed', async () => {
    const url = `http://localhost:${plain.port}/hook`;

    await expect(new TlsWebhookUrlVerifier(localPolicy).verify(url)).resolves.toEqual({ ok: true });
    await expect(new TlsWebhookUrlVerifier(webhookPolicy()).verify(url)).resolves.toEqual({
      ok: false,
      reason: 'scheme http is not allowed (allowed: https)',
    });
  });

  it.each([[['10.0.0.5']], [['127.0.0.1', '10.0.0.5']], [['93.184.216.34']]])(
    'refuses http to a host that is not only loopback (%j)',
    async (addresses) => {
      const verifier = new TlsWebhookUrlVerifier(
        webhookPolicy({ allowPrivateAddresses: true, resolve: resolvesTo(...addresses) }),
      );

      await expect(verifier.verify('http://hooks.example.test/hook')).resolves.toEqual({
        ok: false,
        reason: 'webhook URLs must use https (http only for a local receiver)',
      });
    },
  );

  it('gives up on a handshake after the configured time', async () => {
    const silent = await startSilentTcpServer();
    const verifier = new TlsWebhookUrlVerifier(localPolicy, { handshakeTimeoutMs: TIMEOUT_MS });

    const check = await verifier.verify(`https://127.0.0.1:${silent.port}/hook`);
    await silent.close();

    expect(check).toEqual({ ok: false, reason: `no TLS handshake within ${TIMEOUT_MS} ms` });
  });
});
