import { checkTlsCertificate } from '../../../layers/core/adapters/net/certificate-check';
import { type Resolver, webhookPolicy } from '../../../layers/core/adapters/net/outbound-policy';
import {
  closedPort,
  type LocalReceiver,
  startHttpsReceiver,
  startSilentTcpServer,
  TEST_CA,
} from './local-receivers';

const resolvesTo =
  (...addresses: string[]): Resolver =>
  async () =>
    addresses;

/** Local receivers are on loopback, so these tests run with SVC_ALLOW_PRIVATE_URLS semantics. */
const trustingTestCa = webhookPolicy({
  allowPrivateAddresses: true,
  extraCaCertificates: [TEST_CA],
});

/** Waits until the receiver has no open connection left (the check closed its socket). */
async function allClosed(receiver: LocalReceiver): Promise<boolean> {
  for (let i = 0; i < 50 && receiver.openConnections() > 0; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return receiver.openConnections() === 0;
}

describe('Function: checkTlsCertificate', () => {
  let caSigned: LocalReceiver;
  let selfSigned: LocalReceiver;
  let expired: LocalReceiver;

  beforeAll(async () => {
    [caSigned, selfSigned, expired] = await Promise.all([
      startHttpsReceiver('localhost', (_request, res) => res.end()),
      startHttpsReceiver('self-signed', (_request, res) => res.end()),
      startHttpsReceiver('expired', (_request, res) => res.end()),
    ]);
  });
  afterAll(() => Promise.all([caSigned.close(), selfSigned.close(), expired.close()]));

  it('accepts a certificate from a trusted CA for the IP address, and closes the connection', async () => {
    const check = await checkTlsCertificate(new URL(caSigned.url()), trustingTestCa);

    expect(check).toEqual({ ok: true });
    expect(await allClosed(caSigned)).toBe(true);
  });

  it('accepts a certificate from a trusted CA for the host name (SNI)', async () => {
    const policy = webhookPolicy({
      allowPrivateAddresses: true,
      extraCaCertificates: [TEST_CA],
      resolve: resolvesTo('127.0.0.1'),
    });

    const check = await checkTlsCertificate(
      new URL(`https://localhost:${caSigned.port}/hook`),
      policy,
    );

    expect(check).toEqual({ ok: true });
    expect(caSigned.servernames.at(-1)).toBe('localhost');
  });

  it('rejects a certificate from a CA that is not trusted', async () => {
    const check = await checkTlsCertificate(
      new URL(caSigned.url()),
      webhookPolicy({ allowPrivateAddresses: true }),
    );

    expect(check).toEqual({
      ok: false,
      reason: 'certificate rejected: UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    });
    expect(await allClosed(caSigned)).toBe(true);
  });

  it('rejects a self-signed certificate', async () => {
    const check = await checkTlsCertificate(new URL(selfSigned.url()), trustingTestCa);

    expect(check).toEqual({
      ok: false,
      reason: 'certificate rejected: DEPTH_ZERO_SELF_SIGNED_CERT',
    });
    expect(await allClosed(selfSigned)).toBe(true);
  });

  it('rejects an expired certificate', async () => {
    const check = await checkTlsCertificate(new URL(expired.url()), trustingTestCa);

    expect(check).toEqual({ ok: false, reason: 'certificate rejected: CERT_HAS_EXPIRED' });
  });

  it('rejects a certificate for another host name', async () => {
    const policy = webhookPolicy({
      allowPrivateAddresses: true,
      extraCaCertificates: [TEST_CA],
      resolve: resolvesTo('127.0.0.1'),
    });

    const check = await checkTlsCertificate(
      new URL(`https://hooks.example.test:${caSigned.port}/`),
      policy,
    );

    expect(check).toEqual({
      ok: false,
      reason: 'certificate rejected: ERR_TLS_CERT_ALTNAME_INVALID',
    });
  });

  it('refuses a loopback address unless private addresses are allowed (D35)', async () => {
    const before = caSigned.connections();

    const byAddress = await checkTlsCertificate(
      new URL(caSigned.url()),
      webhookPolicy({ extraCaCertificates: [TEST_CA] }),
    );
    const byName = await checkTlsCertificate(
      new URL(`https://localhost:${caSigned.port}/`),
      webhookPolicy({ extraCaCertificates: [TEST_CA], resolve: resolvesTo('127.0.0.1') }),
    );

    expect(byAddress).toEqual({ ok: false, reason: 'address 127.0.0.1 is not public (loopback)' });
    expect(byName).toEqual({ ok: false, reason: 'address 127.0.0.1 is not public (loopback)' });
    expect(caSigned.connections()).toBe(before);
  });

  it('reports a refused connection', async () => {
    const port = await closedPort();

    const check = await checkTlsCertificate(new URL(`https://127.0.0.1:${port}/`), trustingTestCa);

    expect(check).toEqual({ ok: false, reason: 'connection refused' });
  });

  it('gives up on a server that never completes the handshake', async () => {
    const silent = await startSilentTcpServer();
    const started = Date.now();

    const check = await checkTlsCertificate(
      new URL(`https://127.0.0.1:${silent.port}/`),
      trustingTestCa,
      300,
    );
    await silent.close();

    // The reason says the check's own deadline ended it; it waited that long
    // (a lower bound, which a slow machine cannot break), not the system's.
    expect(check).toEqual({ ok: false, reason: 'no TLS handshake within 300 ms' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });
});
