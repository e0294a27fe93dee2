import { IPv4, IPv6 } from 'ipaddr.js';

/** A CIDR range as written, checked: its canonical form, or why it is refused. */
export type ParsedCidrRange =
  | { readonly ok: true; readonly range: string }
  | { readonly ok: false; readonly problem: string };

const CIDR_SHAPE = /^([^/\s]+)\/(0|[1-9]\d{0,2})$/;

/**
 * One allowlist entry, in CIDR notation (`203.0.113.0/24`,
 * `2001:db8::/32`), checked with ipaddr.js and written back in canonical
 * form (IPv6 compressed and lower case, RFC 5952).
 *
 * Strict on purpose: IPv4 only as four decimal parts without leading
 * zeros (`127.1`, `0x7f.0.0.1` and `010.0.0.1` mean different things to
 * different parsers); no IPv6 zone (`%eth0`); no IPv4-mapped IPv6 ranges
 * (write the IPv4 range, which also covers the mapped form); the prefix
 * within the family's bits; no host bits set (`10.1.2.3/8` is refused
 * naming `10.0.0.0/8`, since it is more likely a mistake than a wish to
 * allow all of 10/8); a bare address needs its `/32` or `/128`.
 *
 * @example
 * parseCidrRange('2001:DB8:0::/32'); // { ok: true, range: '2001:db8::/32' }
 */
export function parseCidrRange(text: string): ParsedCidrRange {
  const shape = CIDR_SHAPE.exec(text);
  if (!shape) {
    return refuse(
      IPv4.isValidFourPartDecimal(text) || IPv6.isValid(text)
        ? `${text} is an address, not a range: write ${text}/${text.includes(':') ? 128 : 32} for this address alone`
        : 'must be a CIDR range such as 203.0.113.0/24 or 2001:db8::/32',
    );
  }
  const [, address = '', prefixText = ''] = shape;
  const prefix = Number(prefixText);
  if (address.includes(':')) {
    if (address.includes('%') || !IPv6.isValid(address)) {
      return refuse(`${address} is not an IPv6 address`);
    }
    if (prefix > 128) return refuse(`an IPv6 prefix is at most 128, not ${prefix}`);
    if (IPv6.parse(address).isIPv4MappedAddress()) {
      return refuse('IPv4-mapped ranges are not accepted: write the IPv4 range itself');
    }
    return canonical(IPv6.parse(address).toString(), IPv6.networkAddressFromCIDR(text), prefix);
  }
  if (!IPv4.isValidFourPartDecimal(address)) {
    return refuse(`${address} is not an IPv4 address in dotted decimal (a.b.c.d)`);
  }
  if (prefix > 32) return refuse(`an IPv4 prefix is at most 32, not ${prefix}`);
  return canonical(IPv4.parse(address).toString(), IPv4.networkAddressFromCIDR(text), prefix);
}

function canonical(address: string, network: IPv4 | IPv6, prefix: number): ParsedCidrRange {
  const networkText = network.toString();
  if (networkText !== address) {
    return refuse(
      `${address}/${prefix} has host bits set: the range it is part of is ${networkText}/${prefix}`,
    );
  }
  return { ok: true, range: `${networkText}/${prefix}` };
}

function refuse(problem: string): ParsedCidrRange {
  return { ok: false, problem };
}
