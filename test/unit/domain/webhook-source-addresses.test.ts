import {
  NO_FIXED_ADDRESSES_REASON,
  parseCidrList,
  webhookSourceAddresses,
} from '../../../layers/core/domain/webhook-source-addresses';

describe('Domain: webhook source addresses (P240)', () => {
  describe('parseCidrList', () => {
    it('reads comma-separated ranges, trims them, makes them canonical and drops repeats', () => {
      expect(parseCidrList(' 203.0.113.7/32 ,2001:DB8:0::/64,, 203.0.113.7/32')).toEqual({
        ok: true,
        cidrs: ['203.0.113.7/32', '2001:db8::/64'],
      });
    });

    it('reads an empty text as no ranges', () => {
      expect(parseCidrList('')).toEqual({ ok: true, cidrs: [] });
      expect(parseCidrList(' , ')).toEqual({ ok: true, cidrs: [] });
    });

    it.each([
      ['a bare address', '203.0.113.7', /write 203\.0\.113\.7\/32/],
      ['host bits set', '203.0.113.7/24', /203\.0\.113\.0\/24/],
      ['no address at all', 'loopback', /must be a CIDR range/],
    ])('refuses %s, naming the entry and why', (_case, text, why) => {
      const parsed = parseCidrList(`127.0.0.1/32,${text}`);
      expect(parsed.ok).toBe(false);
      if (parsed.ok) return;
      expect(parsed.problem.startsWith(`${text}: `)).toBe(true);
      expect(parsed.problem).toMatch(why);
    });
  });

  describe('webhookSourceAddresses', () => {
    it('is fixed with the ranges and their time when there is at least one range', () => {
      const at = new Date('2026-11-27T17:00:00Z');
      expect(webhookSourceAddresses(['203.0.113.7/32'], at)).toEqual({
        fixed: true,
        cidrs: ['203.0.113.7/32'],
        changedAt: at,
      });
    });

    it('says there are no fixed addresses, and why, rather than listing nothing', () => {
      expect(webhookSourceAddresses([], null)).toEqual({
        fixed: false,
        reason: NO_FIXED_ADDRESSES_REASON,
      });
      expect(NO_FIXED_ADDRESSES_REASON).toMatch(/X-Svc-Signature/);
    });
  });
});
