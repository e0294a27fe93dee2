import fc from 'fast-check';
import { parseCidrRange } from '../../../layers/core/domain/cidr-range';
import { compileIpAllowlist } from '../../../layers/core/domain/ip-allowlist';

describe('Function: parseCidrRange (D15, P79)', () => {
  it.each([
    ['203.0.113.0/24', '203.0.113.0/24'],
    ['0.0.0.0/0', '0.0.0.0/0'],
    ['198.51.100.7/32', '198.51.100.7/32'],
    ['2001:DB8:0:0::/32', '2001:db8::/32'],
    ['::1/128', '::1/128'],
    ['::/0', '::/0'],
    ['fd00:0:0:0:0:0:0:0/8', 'fd00::/8'],
  ])('accepts %s as %s', (text, canonical) => {
    expect(parseCidrRange(text)).toEqual({ ok: true, range: canonical });
  });

  it.each([
    ['10.1.2.3/8', /host bits set: the range it is part of is 10\.0\.0\.0\/8/],
    ['2001:db8::1/32', /2001:db8::\/32/],
    ['203.0.113.7', /write 203\.0\.113\.7\/32/],
    ['2001:db8::1', /write 2001:db8::1\/128/],
    ['127.1/8', /dotted decimal/],
    ['0x7f.0.0.1/32', /dotted decimal/],
    ['010.0.0.0/8', /dotted decimal/],
    ['017700000001/32', /dotted decimal/],
    ['1.2.3.4/33', /at most 32/],
    ['2001:db8::/129', /at most 128/],
    ['1.2.3.4/08', /CIDR range/],
    ['1.2.3.4/-1', /CIDR range/],
    ['::ffff:127.0.0.1/128', /IPv4-mapped/],
    ['fe80::1%eth0/64', /not an IPv6 address/],
    ['1.2.3.4 /24', /CIDR range/],
    ['', /CIDR range/],
    ['example.com/24', /dotted decimal/],
  ])('refuses %s', (text, problem) => {
    const parsed = parseCidrRange(text);

    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? '' : parsed.problem).toMatch(problem);
  });

  it('gives back only ranges the request path can compile, and each is its own canonical form', () => {
    // Addresses with their host bits cleared, so most inputs are ranges the
    // parser accepts (random bits under a random prefix almost never are);
    // arbitrary strings stay in, a few, for the refusals.
    const v4 = fc
      .tuple(fc.array(fc.nat(255), { minLength: 4, maxLength: 4 }), fc.nat(32))
      .map(([parts, prefix]) => {
        const masked = parts.map((part, index) => {
          const keptBits = Math.min(8, Math.max(0, prefix - index * 8));
          return part & ((0xff << (8 - keptBits)) & 0xff);
        });
        return `${masked.join('.')}/${prefix}`;
      });
    const v6 = fc
      .tuple(fc.array(fc.nat(0xffff), { minLength: 8, maxLength: 8 }), fc.nat(128))
      .map(([groups, prefix]) => {
        const masked = groups.map((group, index) => {
          const keptBits = Math.min(16, Math.max(0, prefix - index * 16));
          return group & ((0xffff << (16 - keptBits)) & 0xffff);
        });
        return `${masked.map((g) => g.toString(16)).join(':')}/${prefix}`;
      });
    let runs = 0;
    let accepted = 0;
    fc.assert(
      fc.property(
        fc.oneof(
          { arbitrary: v4, weight: 4 },
          { arbitrary: v6, weight: 4 },
          { arbitrary: fc.string({ maxLength: 50 }), weight: 1 },
        ),
        (text) => {
          runs += 1;
          const parsed = parseCidrRange(text);
          if (!parsed.ok) return;
          accepted += 1;
          const invalid: string[] = [];

          compileIpAllowlist([parsed.range], (range) => invalid.push(range));

          expect(invalid).toEqual([]);
          expect(parseCidrRange(parsed.range)).toEqual(parsed);
        },
      ),
      { numRuns: 500 },
    );

    // The property checked most of its runs, not a handful.
    expect(accepted).toBeGreaterThan(runs * 0.7);
  });
});
