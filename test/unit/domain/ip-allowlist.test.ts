import { compileIpAllowlist } from '../../../layers/core/domain/ip-allowlist';

describe('Function: compileIpAllowlist (D15, P76)', () => {
  it('allows every address when there are no ranges', () => {
    expect(compileIpAllowlist([])).toBeNull();
  });

  it('matches IPv4, IPv6 and the IPv4-mapped form of an allowed IPv4 address', () => {
    const list = compileIpAllowlist(['203.0.113.0/24', '2001:db8::/32']);

    expect(list?.allows('203.0.113.200')).toBe(true);
    expect(list?.allows('203.0.114.1')).toBe(false);
    expect(list?.allows('::ffff:203.0.113.9')).toBe(true);
    expect(list?.allows('2001:db8:ffff::1')).toBe(true);
    expect(list?.allows('2001:db9::1')).toBe(false);
  });

  it('refuses what is not an address: unknown, empty, a header value', () => {
    const list = compileIpAllowlist(['0.0.0.0/0', '::/0']);

    for (const address of ['unknown', '', '203.0.113.7, 10.0.0.1', '127.1']) {
      expect({ address, allowed: list?.allows(address) }).toEqual({ address, allowed: false });
    }
  });

  it('skips a stored range it cannot read, so it never widens the list', () => {
    const invalid: string[] = [];

    const list = compileIpAllowlist(['nonsense', '10.0.0.0/8'], (range) => invalid.push(range));

    expect(invalid).toEqual(['nonsense']);
    expect(list?.allows('10.1.1.1')).toBe(true);
    expect(list?.allows('11.1.1.1')).toBe(false);
  });
});
