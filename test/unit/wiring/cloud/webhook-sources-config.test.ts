import { parseCloudConfig } from '../../../../layers/core/config';
import { NO_FIXED_ADDRESSES_REASON } from '../../../../layers/core/domain/webhook-source-addresses';
import { cloudWebhookSourceAddresses } from '../../../../layers/core/wiring/cloud/cloud-webhooks';

describe('Cloud config: webhookSources (P240, P241)', () => {
  it('answers the Elastic IPs the stack sets, as canonical CIDR ranges, and when they last changed', () => {
    expect(
      cloudWebhookSourceAddresses({
        SVC_WEBHOOK_SOURCE_IPS: '203.0.113.7/32,198.51.100.20/32',
        SVC_WEBHOOK_SOURCE_IPS_CHANGED_AT: '2026-11-27T17:00:00.123Z',
      }),
    ).toEqual({
      fixed: true,
      cidrs: ['203.0.113.7/32', '198.51.100.20/32'],
      changedAt: new Date('2026-11-27T17:00:00.123Z'),
    });
  });

  it('answers "not fixed", with the reason, when the stack set nothing (no VPC)', () => {
    expect(cloudWebhookSourceAddresses({})).toEqual({
      fixed: false,
      reason: NO_FIXED_ADDRESSES_REASON,
    });
  });

  it('leaves the ranges to the webhooks family: the shared config reads them as text', () => {
    // Checking them there would bring ipaddr.js into every function's bundle.
    expect(
      parseCloudConfig('webhookSources', { SVC_WEBHOOK_SOURCE_IPS: '203.0.113.7/32' }),
    ).toEqual({ SVC_WEBHOOK_SOURCE_IPS: '203.0.113.7/32' });
  });

  it.each([
    [
      'an address without its prefix',
      { SVC_WEBHOOK_SOURCE_IPS: '203.0.113.7' },
      'SVC_WEBHOOK_SOURCE_IPS',
    ],
    ['a prefix too long', { SVC_WEBHOOK_SOURCE_IPS: '203.0.113.7/33' }, 'SVC_WEBHOOK_SOURCE_IPS'],
    [
      'a time that is not ISO 8601',
      { SVC_WEBHOOK_SOURCE_IPS: '203.0.113.7/32', SVC_WEBHOOK_SOURCE_IPS_CHANGED_AT: 'yesterday' },
      'SVC_WEBHOOK_SOURCE_IPS_CHANGED_AT',
    ],
  ])('refuses %s at cold start, naming the variable', (_case, env, name) => {
    expect(() => cloudWebhookSourceAddresses(env)).toThrow(
      new RegExp(`Invalid function configuration \\(webhookSources\\): ${name}:`),
    );
  });
});
