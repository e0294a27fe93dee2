import { BlockList, isIP } from 'node:net';

/**
 * The addresses an organization's keys and sessions may be used from,
 * compiled once from its stored ranges and then asked on every request.
 *
 * Matching uses Node's own `net.BlockList` (native code in the runtime, so
 * every HTTP function gets it without a byte of bundle); the ranges
 * were checked and made canonical by `parseCidrRange` (ipaddr.js) when they
 * were written. An IPv4 range also covers the IPv4-mapped IPv6 form of its
 * addresses (`::ffff:203.0.113.7`).
 */
export interface IpAllowlist {
  /** The stored ranges it was compiled from. */
  readonly ranges: readonly string[];
  /** True when `address` (as API Gateway reports it) is inside one of the ranges. */
  allows(address: string): boolean;
}

/**
 * Compiles stored ranges; `null` when there are none (the organization
 * allows every address). A range the runtime cannot read is skipped and
 * reported through `onInvalid`, so it can never widen the list.
 */
export function compileIpAllowlist(
  ranges: readonly string[],
  onInvalid: (range: string) => void = () => {},
): IpAllowlist | null {
  if (ranges.length === 0) return null;
  const list = new BlockList();
  for (const range of ranges) {
    const slash = range.lastIndexOf('/');
    const address = range.slice(0, slash);
    const prefix = Number(range.slice(slash + 1));
    const family = isIP(address);
    try {
      if (slash < 0 || family === 0 || !Number.isInteger(prefix)) throw new Error(range);
      list.addSubnet(address, prefix, family === 4 ? 'ipv4' : 'ipv6');
    } catch {
      onInvalid(range);
    }
  }
  return {
    ranges,
    allows(address: string): boolean {
      const family = isIP(address);
      if (family === 0) return false;
      try {
        return list.check(address, family === 4 ? 'ipv4' : 'ipv6');
      } catch {
        return false;
      }
    },
  };
}
