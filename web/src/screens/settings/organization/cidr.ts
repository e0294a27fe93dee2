import { IPv4, IPv6 } from 'ipaddr.js';

/**
 * The IP allowlist's rules, checked in the browser before anything is sent.
 * The console may not import the service's code,
 * so this is the same library (ipaddr.js) under the same rules and
 * words as layers/core/domain/cidr-range.ts, and matching as the service's
 * `net.BlockList` does (layers/core/domain/ip-allowlist.ts); a jest test
 * holds the two to the same answers (web/tests/unit/settings-organization.test.ts).
 * The service still checks everything: this only says it sooner.
 */

/** A range as written: its canonical form, or why the service would refuse it. */
export type CheckedRange =
  | { readonly ok: true; readonly range: string }
  | { readonly ok: false; readonly problem: string };

const CIDR_SHAPE = /^([^/\s]+)\/(0|[1-9]\d{0,2})$/;

/**
 * One entry in CIDR notation, written back canonically (IPv6 compressed and
 * lower case). Strict as the service is: IPv4 as four decimal parts
 * without leading zeros, no IPv6 zone, no IPv4-mapped ranges, the prefix
 * within the family's bits, no host bits set, a bare address needs its
 * `/32` or `/128`.
 */
export function checkRange(text: string): CheckedRange {
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

function canonical(address: string, network: IPv4 | IPv6, prefix: number): CheckedRange {
  const networkText = network.toString();
  if (networkText !== address) {
    return refuse(
      `${address}/${prefix} has host bits set: the range it is part of is ${networkText}/${prefix}`,
    );
  }
  return { ok: true, range: `${networkText}/${prefix}` };
}

function refuse(problem: string): CheckedRange {
  return { ok: false, problem };
}

/**
 * An address in IPv6 form, as `net.BlockList` compares them: IPv4 as its
 * IPv4-mapped form, so an IPv4 range covers `::ffff:a.b.c.d` and an IPv6
 * range covering `::ffff:0:0/96` (e.g. `::/0`) covers IPv4 addresses.
 */
function asIPv6(address: string): IPv6 | null {
  if (IPv4.isValidFourPartDecimal(address)) return IPv4.parse(address).toIPv4MappedAddress();
  if (!address.includes('%') && IPv6.isValid(address)) return IPv6.parse(address);
  return null;
}

/** True when `address` is inside the canonical range `range`. */
export function rangeContains(range: string, address: string): boolean {
  const target = asIPv6(address);
  const slash = range.lastIndexOf('/');
  const network = asIPv6(range.slice(0, slash));
  if (!target || !network || slash < 0) return false;
  const prefix = Number(range.slice(slash + 1)) + (range.includes(':') ? 0 : 96);
  return target.match(network, prefix);
}

/**
 * P77 asked before sending: would these ranges shut out `address`? Only
 * the valid ones count (the service refuses the others anyway, each named),
 * and a list with none allows every address, so it shuts out nobody.
 */
export function wouldShutOut(ranges: readonly string[], address: string): boolean {
  const valid = ranges.flatMap((text) => {
    const checked = checkRange(text.trim());
    return checked.ok ? [checked.range] : [];
  });
  return valid.length > 0 && !valid.some((range) => rangeContains(range, address));
}

/**
 * The range to suggest for the caller's own address: the address alone
 * (`/32` or `/128`), the narrowest range that keeps them working.
 */
export function rangeForAddress(address: string): string | null {
  if (IPv4.isValidFourPartDecimal(address)) return `${address}/32`;
  if (!address.includes('%') && IPv6.isValid(address)) {
    const parsed = IPv6.parse(address);
    return parsed.isIPv4MappedAddress()
      ? `${parsed.toIPv4Address().toString()}/32`
      : `${parsed.toString()}/128`;
  }
  return null;
}
