import { isIP } from 'node:net';
import { connect, type TLSSocket } from 'node:tls';
import type { UrlCheck } from '../../ports/webhook-transport.port';
import { describeConnectionError } from './connection-error';
import { type OutboundPolicy, trustedCertificates } from './outbound-policy';
import { checkLiteralHost, guardedLookup, hostOf } from './url-guard';

const HTTPS_PORT = 443;

/**
 * A webhook URL must present a valid certificate — trusted chain, not
 * expired, matching the host name, not self-signed. Opens one TLS connection
 * (through the SSRF guarded lookup), completes the handshake, closes it; no
 * HTTP request is sent.
 *
 * @example
 * const check = await checkTlsCertificate(new URL('https://hooks.example.com/x'), policy);
 * // { ok: false, reason: 'certificate rejected: DEPTH_ZERO_SELF_SIGNED_CERT' }
 */
export async function checkTlsCertificate(
  url: URL,
  policy: OutboundPolicy,
  timeoutMs = 5_000,
): Promise<UrlCheck> {
  const host = hostOf(url);
  const refusal = checkLiteralHost(host, policy);
  if (refusal) return { ok: false, reason: refusal.message };

  return new Promise<UrlCheck>((resolve) => {
    let socket: TLSSocket | undefined;
    let settled = false;
    const finish = (check: UrlCheck) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket?.destroy();
      resolve(check);
    };
    // One deadline for DNS, TCP connect and handshake together.
    const timer = setTimeout(
      () => finish({ ok: false, reason: `no TLS handshake within ${timeoutMs} ms` }),
      timeoutMs,
    );
    try {
      socket = connect({
        host,
        port: url.port === '' ? HTTPS_PORT : Number(url.port),
        // SNI carries names only (RFC 6066); an IP host is matched against the IP SANs.
        servername: isIP(host) === 0 ? host : undefined,
        rejectUnauthorized: true,
        ca: trustedCertificates(policy),
        lookup: guardedLookup(policy),
      });
      socket.once('secureConnect', () => finish({ ok: true }));
      socket.on('error', (error) => finish({ ok: false, reason: describeConnectionError(error) }));
    } catch (error) {
      finish({ ok: false, reason: describeConnectionError(error) });
    }
  });
}
