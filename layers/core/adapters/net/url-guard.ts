import { isIP, type LookupFunction } from 'node:net';
import { classifyAddress } from '../../domain/public-address';
import { type OutboundPolicy, type OutboundScheme, resolverOf } from './outbound-policy';

/**
 * A connection was about to be made to an address that is not public
 * unicast. Raised by the guarded lookup (so sockets fail with it) and by the
 * IP-literal check; its message is safe to store and show.
 */
export class AddressNotAllowedError extends Error {
  readonly code = 'ERR_ADDRESS_NOT_ALLOWED';

  constructor(
    readonly address: string,
    readonly range: string,
  ) {
    super(`address ${address} is not public (${range})`);
    this.name = new.target.name;
  }
}

export type ParsedUrl = { readonly ok: true; readonly url: URL } | RefusedUrl;
export type OutboundUrlCheck =
  | { readonly ok: true; readonly url: URL; readonly addresses: readonly string[] }
  | RefusedUrl;
type RefusedUrl = { readonly ok: false; readonly reason: string };

/** How long a URL check waits for DNS before giving up. */
const DEFAULT_RESOLVE_TIMEOUT_MS = 5_000;

/**
 * The syntactic half of the check: a WHATWG URL (which normalises host
 * spellings such as `127.1`, `0x7f.1` or `017700000001` to `127.0.0.1`), an
 * allowed scheme, no credentials. Nothing is resolved.
 */
export function parseOutboundUrl(raw: string, policy: OutboundPolicy): ParsedUrl {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'not a valid URL' };
  }
  const scheme = url.protocol.slice(0, -1);
  if (!policy.allowedSchemes.includes(scheme as OutboundScheme)) {
    return {
      ok: false,
      reason: `scheme ${scheme} is not allowed (allowed: ${policy.allowedSchemes.join(', ')})`,
    };
  }
  // Credentials in a URL would be stored and logged with it; receivers authenticate by signature.
  if (url.username !== '' || url.password !== '') {
    return { ok: false, reason: 'URLs with credentials are not allowed' };
  }
  if (hostOf(url) === '') return { ok: false, reason: 'URL has no host' };
  return { ok: true, url };
}

/**
 * Checks a customer-supplied URL before it is stored or fetched:
 * {@link parseOutboundUrl}, then the host resolved to all of its addresses,
 * refused if ANY is not public unicast (unless the policy allows private
 * addresses). A pass says nothing about later connections: DNS can change, so
 * connections go through {@link guardedLookup} as well.
 *
 * @example
 * const check = await checkOutboundUrl('https://hooks.example.com/x', webhookPolicy);
 * if (!check.ok) throw new InvalidRequestError(`url: ${check.reason}`);
 */
export async function checkOutboundUrl(
  raw: string,
  policy: OutboundPolicy,
  resolveTimeoutMs = DEFAULT_RESOLVE_TIMEOUT_MS,
): Promise<OutboundUrlCheck> {
  const parsed = parseOutboundUrl(raw, policy);
  if (!parsed.ok) return parsed;
  const host = hostOf(parsed.url);

  let addresses: readonly string[];
  if (isIP(host) !== 0) {
    addresses = [host];
  } else {
    const resolved = await resolveWithin(host, policy, resolveTimeoutMs);
    if (!resolved.ok) return resolved;
    addresses = resolved.addresses;
  }

  const refusal = firstRefused(addresses, policy);
  if (refusal) {
    return {
      ok: false,
      reason:
        host === refusal.address
          ? refusal.message
          : `host ${host} resolves to ${refusal.address}, which is not public (${refusal.range})`,
    };
  }
  return { ok: true, url: parsed.url, addresses };
}

/**
 * A `lookup` for `net.connect`, `tls.connect` and `http(s).request` that
 * resolves with the policy's resolver and fails with
 * {@link AddressNotAllowedError} if any address is refused. The check
 * happens on the addresses the socket is about to connect to, so a name that
 * resolved to a public address when the URL was checked and to an internal
 * one now (DNS rebinding) is still refused.
 *
 * Node does not call `lookup` for IP-literal hosts; check those with
 * {@link checkLiteralHost} before connecting.
 */
export function guardedLookup(policy: OutboundPolicy): LookupFunction {
  const resolve = resolverOf(policy);
  return (hostname, options, callback) => {
    const family = familyNumber(options.family);
    const answer = async (): Promise<LookupAnswer> => {
      try {
        const addresses = await resolve(hostname);
        const refusal = firstRefused(addresses, policy);
        if (refusal) return { error: refusal };
        const records = addresses
          .map((address) => ({ address, family: isIP(address) }))
          .filter((record) => family === 0 || record.family === family);
        const [first] = records;
        return first ? { first, records } : { error: notFound(hostname) };
      } catch (error) {
        // Duck-typed: errors from node:dns may come from another realm (test sandboxes).
        return { error: isError(error) ? error : notFound(hostname) };
      }
    };
    // The callback runs outside the promise chain so anything it throws is not swallowed.
    void answer().then((result) =>
      process.nextTick(() => {
        if ('error' in result) return callback(result.error, '');
        if (options.all) return callback(null, result.records);
        return callback(null, result.first.address, result.first.family);
      }),
    );
  };
}

type LookupRecord = { address: string; family: number };
type LookupAnswer =
  | { readonly first: LookupRecord; readonly records: LookupRecord[] }
  | { readonly error: Error };

/**
 * Node connects to an IP-literal host without calling `lookup`, so the
 * guarded lookup never sees it: this is the same rule for that case.
 * Returns the refusal, or `undefined` when the host is a name or allowed.
 */
export function checkLiteralHost(
  host: string,
  policy: OutboundPolicy,
): AddressNotAllowedError | undefined {
  return isIP(host) === 0 ? undefined : firstRefused([host], policy);
}

/** The URL's host as a socket wants it: IPv6 without brackets. */
export function hostOf(url: URL): string {
  const { hostname } = url;
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

function firstRefused(
  addresses: readonly string[],
  policy: OutboundPolicy,
): AddressNotAllowedError | undefined {
  for (const address of addresses) {
    const { public: isPublic, range } = classifyAddress(address);
    // SVC_ALLOW_PRIVATE_URLS lifts the address rule, but a resolver
    // answer that is not an IP address at all is never connected to.
    if (isPublic || (policy.allowPrivateAddresses && range !== 'invalid')) continue;
    return new AddressNotAllowedError(address, range);
  }
  return undefined;
}

async function resolveWithin(
  host: string,
  policy: OutboundPolicy,
  timeoutMs: number,
): Promise<{ ok: true; addresses: readonly string[] } | RefusedUrl> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<RefusedUrl>((resolve) => {
    timer = setTimeout(
      () => resolve({ ok: false, reason: `host ${host} did not resolve within ${timeoutMs} ms` }),
      timeoutMs,
    );
  });
  const resolver = resolverOf(policy);
  // Through `then` so a resolver that throws synchronously is a refusal too, not a crash.
  const lookup = Promise.resolve(host)
    .then(resolver)
    .then(
      (addresses) =>
        addresses.length > 0
          ? { ok: true as const, addresses }
          : { ok: false as const, reason: `host ${host} does not resolve` },
      (error: unknown) => ({
        ok: false as const,
        reason: `host ${host} does not resolve${errorCodeSuffix(error)}`,
      }),
    );
  try {
    return await Promise.race([lookup, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function errorCodeSuffix(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[A-Z][A-Z0-9_]*$/.test(code) ? ` (${code})` : '';
}

function familyNumber(family: number | 'IPv4' | 'IPv6' | undefined): number {
  if (family === 'IPv4') return 4;
  if (family === 'IPv6') return 6;
  return family ?? 0;
}

function notFound(hostname: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
    code: 'ENOTFOUND',
    hostname,
  });
}

function isError(value: unknown): value is Error {
  return typeof value === 'object' && value !== null && 'message' in value && 'name' in value;
}
