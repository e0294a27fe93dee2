import { Resolver } from 'node:dns/promises';
import type { TxtResolver } from '../../ports/sso.port';

/** DNS answers meaning "this name has no TXT record" rather than "DNS failed". */
const NO_RECORD = new Set(['ENODATA', 'ENOTFOUND']);

/**
 * Domain verification: TXT look-ups through node:dns's `Resolver`
 * (c-ares, straight to the servers, not the system's `getaddrinfo`).
 * `servers` (`SVC_DNS_SERVERS`: `host` or `host:port`, comma-separated)
 * replaces the system's; tests point it at a DNS server on loopback.
 */
export class DnsTxtResolver implements TxtResolver {
  readonly #resolver: Resolver;

  constructor(options: { readonly servers?: readonly string[]; readonly timeoutMs?: number } = {}) {
    this.#resolver = new Resolver({ timeout: options.timeoutMs ?? 3000, tries: 2 });
    if (options.servers && options.servers.length > 0)
      this.#resolver.setServers([...options.servers]);
  }

  async resolveTxt(name: string): Promise<string[]> {
    try {
      // A TXT record may come in several strings of up to 255 bytes; joined they are its value.
      return (await this.#resolver.resolveTxt(name)).map((chunks) => chunks.join(''));
    } catch (error) {
      if (NO_RECORD.has((error as NodeJS.ErrnoException).code ?? '')) return [];
      throw error;
    }
  }
}
