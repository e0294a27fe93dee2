import { parseCloudConfig } from '../../../../layers/core/config';
import { cloudWebhookSourceAddresses } from '../../../../layers/core/wiring/cloud/cloud-webhooks';

describe('Cloud config: webhookSources (P240, P241)', () => {
  it('reads the Elastic IPs the stack sets, as CIDR ranges, and when they last changed', () => {
    expect(
      parseCloudConfig('webhookSources', {
        SVC_WEBHOOK_SOURCE_IPS: '203.0.113.7/32,198.51.100.20/32',
        SVC_WEBHOOK_SOURCE_IPS_CHANGED_AT: '2026-11-27T17:00:00.123Z',
      }),
    ).toEqual({
      SVC_WEBHOOK_SOURCE_IPS: ['203.0.113.7/32', '198.51.100.20/32'],
      SVC_WEBHOOK_SOURCE_IPS_CHANGED_AT: new Date('2026-11-27T17:00:00.123Z'),
    });
  });

  it('reads nothing set (a deployment without the VPC) as no addresses', () => {
    expect(parseCloudConfig('webhookSources', {})).toEqual({ SVC_WEBHOOK_SOURCE_IPS: [] });
  });

  it.each([
    [
      'an address without its prefix',
      { SVC_WEBHOOK_SOURCE_IPS: '203.0.113.7' },
      'SVC_WEBHOOK_SOURCE_IPS',
    ],
    [
      'a range that is not one',
      { SVC_WEBHOOK_SOURCE_IPS: '203.0.113.7/33' },
      'SVC_WEBHOOK_SOURCE_IPS',
    ],
    [
      'a time that is not ISO 8601',
      { SVC_WEBHOOK_SOURCE_IPS_CHANGED_AT: 'yesterday' },
      'SVC_WEBHOOK_SOURCE_IPS_CHANGED_AT',
    ],
  ])('refuses %s at cold start, naming the variable', (_case, env, name) => {
    expect(() => parseCloudConfig('webhookSources', env)).toThrow(
      new RegExp(`Invalid function configuration \\(webhookSources\\): ${name}:`),
    );
  });

  describe('cloudWebhookSourceAddresses', () => {
    const saved = { ...process.env };
    afterEach(() => {
      process.env = { ...saved };
    });

    it('answers the addresses and their time from the environment', () => {
      process.env.SVC_WEBHOOK_SOURCE_IPS = '203.0.113.7/32';
      process.env.SVC_WEBHOOK_SOURCE_IPS_CHANGED_AT = '2026-11-27T17:00:00Z';
      expect(cloudWebhookSourceAddresses()).toEqual({
        fixed: true,
        cidrs: ['203.0.113.7/32'],
        changedAt: new Date('2026-11-27T17:00:00Z'),
      });
    });

    it('answers "not fixed" with the reason when the stack set nothing', () => {
      delete process.env.SVC_WEBHOOK_SOURCE_IPS;
      delete process.env.SVC_WEBHOOK_SOURCE_IPS_CHANGED_AT;
      expect(cloudWebhookSourceAddresses()).toMatchObject({ fixed: false });
    });
  });
});
