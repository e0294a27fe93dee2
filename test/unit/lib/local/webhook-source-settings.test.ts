import { parseLocalConfig } from '../../../../lib/local/local-config';

/** P240: on one machine the published delivery addresses are a setting. */
describe('local webhook source addresses (P240)', () => {
  it('defaults to this machine’s loopback, with no time', () => {
    const config = parseLocalConfig({});

    expect(config.SVC_WEBHOOK_SOURCE_IPS).toEqual(['127.0.0.1/32', '::1/128']);
    expect(config.SVC_WEBHOOK_SOURCE_IPS_CHANGED_AT).toBeUndefined();
  });

  it('takes the machine’s own ranges and when they changed', () => {
    const config = parseLocalConfig({
      SVC_WEBHOOK_SOURCE_IPS: '192.0.2.10/32, 2001:db8::10/128',
      SVC_WEBHOOK_SOURCE_IPS_CHANGED_AT: '2026-11-01T00:00:00+01:00',
    });

    expect(config.SVC_WEBHOOK_SOURCE_IPS).toEqual(['192.0.2.10/32', '2001:db8::10/128']);
    expect(config.SVC_WEBHOOK_SOURCE_IPS_CHANGED_AT).toEqual(new Date('2026-10-31T23:00:00Z'));
  });

  it('reads an empty setting as no fixed addresses', () => {
    expect(parseLocalConfig({ SVC_WEBHOOK_SOURCE_IPS: '' }).SVC_WEBHOOK_SOURCE_IPS).toEqual([]);
  });

  it('refuses a malformed range at start, naming the setting and the entry', () => {
    expect(() => parseLocalConfig({ SVC_WEBHOOK_SOURCE_IPS: '127.0.0.1/32,localhost' })).toThrow(
      /SVC_WEBHOOK_SOURCE_IPS: must be CIDR ranges, comma-separated \(localhost: /,
    );
  });
});
