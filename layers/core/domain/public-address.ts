import { IPv4, IPv6 } from 'ipaddr.js';

/**
 * How an IP address was classified: `public` only for public unicast, and the
 * range it fell in (`unicast`, `loopback`, `private`, `linkLocal`,
 * `cloudMetadata`, `ipv4Mapped`, `6to4:loopback`, `invalid`, …) for messages.
 */
export interface AddressClass {
  readonly public: boolean;
  readonly range: string;
}

/**
 * The cloud metadata endpoints (EC2 IMDS over IPv4 and IPv6). They sit in
 * ranges refused anyway; naming them makes the refusal easy to recognise.
 */
const CLOUD_METADATA = new Set(['169.254.169.254', 'fd00:ec2::254']);

/** IANA global unicast space; everything else in IPv6 is special or unallocated. */
const GLOBAL_UNICAST_V6 = IPv6.parseCIDR('2000::/3');
/** RFC 6052 well-known NAT64 prefix: the last 32 bits are the IPv4 destination. */
const NAT64_WELL_KNOWN = IPv6.parseCIDR('64:ff9b::/96');
/** RFC 3056 6to4: bits 16–47 are the IPv4 address of the relay. */
const SIX_TO_FOUR = IPv6.parseCIDR('2002::/16');

const refused = (range: string): AddressClass => ({ public: false, range });

/**
 * Classifies an IP literal (IPv4 dotted quad or IPv6, brackets allowed).
 *
 * Only public unicast is allowed to be fetched. Anything else —
 * loopback, private, link-local, CGNAT, multicast, `0.0.0.0/8`, broadcast,
 * reserved and documentation ranges, ULA, IPv4-mapped and -compatible forms,
 * Teredo, the metadata addresses — is refused, and 6to4 and NAT64 addresses
 * are judged by the IPv4 address they carry. IPv4 must be in canonical
 * four-part decimal form: shorthand such as `127.1` or `0x7f.1` is what URL
 * parsing and DNS have already normalised, so seeing it here means something
 * skipped that step, and it is refused rather than guessed at.
 *
 * @example
 * classifyAddress('10.1.2.3'); // { public: false, range: 'private' }
 * classifyAddress('[2002:a9fe:a9fe::1]'); // { public: false, range: '6to4:linkLocal' }
 */
export function classifyAddress(address: string): AddressClass {
  const literal = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (IPv4.isValidFourPartDecimal(literal)) return classifyIPv4(IPv4.parse(literal));
  if (!literal.includes(':')) return refused('invalid');
  // A zone id scopes the address to one interface: never a public destination.
  if (literal.includes('%')) return refused('scoped');
  const canonical = canonicalIPv6(literal);
  return canonical === undefined ? refused('invalid') : classifyIPv6(IPv6.parse(canonical));
}

/** `true` only for a public unicast IP literal (see {@link classifyAddress}). */
export function isPublicUnicast(address: string): boolean {
  return classifyAddress(address).public;
}

/**
 * The IPv6 address as WHATWG URL parsing writes it (all hex groups). ipaddr.js
 * reads `::a.b.c.d` as `::ffff:a.b.c.d`; going through the URL parser first
 * means the address judged is the one a URL with that host would reach.
 */
function canonicalIPv6(literal: string): string | undefined {
  try {
    return new URL(`http://[${literal}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
}

function classifyIPv4(ipv4: IPv4): AddressClass {
  if (CLOUD_METADATA.has(ipv4.toString())) return refused('cloudMetadata');
  // ipaddr.js names every special-purpose IPv4 block (RFC 6890): 0/8,
  // 10/8, 100.64/10, 127/8, 169.254/16, 172.16/12, 192.0.0/24, the
  // documentation blocks, 198.18/15, 224/4, 240/4, broadcast, …
  // What is left is `unicast`.
  const range = ipv4.range();
  return range === 'unicast' ? { public: true, range } : refused(range);
}

function classifyIPv6(ipv6: IPv6): AddressClass {
  if (CLOUD_METADATA.has(ipv6.toString())) return refused('cloudMetadata');
  // Translation prefixes carry an IPv4 destination; the packet ends up
  // there, so that address decides.
  if (ipv6.match(NAT64_WELL_KNOWN)) return embedded('nat64', ipv6.parts[6], ipv6.parts[7]);
  if (ipv6.match(SIX_TO_FOUR)) return embedded('6to4', ipv6.parts[1], ipv6.parts[2]);

  const range = ipv6.range();
  if (range !== 'unicast') return refused(range);
  // ::a.b.c.d (deprecated IPv4-compatible form): ipaddr.js calls it unicast.
  if (ipv6.parts.slice(0, 6).every((part) => part === 0)) return refused('ipv4Compatible');
  if (!ipv6.match(GLOBAL_UNICAST_V6)) return refused('unallocated');
  return { public: true, range };
}

/** Judges the IPv4 address carried in two 16-bit parts of an IPv6 address. */
function embedded(prefix: string, high: number | undefined, low: number | undefined): AddressClass {
  const h = high ?? 0;
  const l = low ?? 0;
  const inner = classifyIPv4(new IPv4([h >> 8, h & 0xff, l >> 8, l & 0xff]));
  return inner.public ? { public: true, range: prefix } : refused(`${prefix}:${inner.range}`);
}
