import {
  canonicalEventType,
  envelopeFor,
  subscribedNameFor,
} from '../../../layers/core/domain/events';
import { isId, newId } from '../../../layers/core/domain/ids';
import {
  deliveryIdFor,
  MAX_DELIVERY_ATTEMPTS,
  retryDelayAfter,
} from '../../../layers/core/domain/webhook';
import {
  generateWebhookSecret,
  signaturesMatch,
  standardWebhookSignature,
  svcSignature,
} from '../../../layers/core/domain/webhook-signature';

describe('Domain: event catalog (D27)', () => {
  it('maps the published aliases to their canonical type', () => {
    expect(canonicalEventType('data_source.synced')).toBe('datasource.processed');
    expect(canonicalEventType('data_source.processed')).toBe('datasource.processed');
    expect(canonicalEventType('agent.updated')).toBe('agent.updated');
    expect(canonicalEventType('agent.exploded')).toBeUndefined();
    expect(canonicalEventType('__proto__')).toBeUndefined();
  });

  it('delivers under the name the subscriber used', () => {
    expect(subscribedNameFor(['data_source.synced'], 'datasource.processed')).toBe(
      'data_source.synced',
    );
    expect(subscribedNameFor(['agent.created'], 'datasource.processed')).toBeUndefined();
    const event = {
      id: newId('event'),
      type: 'datasource.processed' as const,
      timestamp: '2026-11-21T10:00:00.000Z',
      organizationId: 'org_x',
      data: {},
    };
    // D28: set A's envelope plus set B's `event`, both carrying the subscribed name.
    expect(envelopeFor(event, 'data_source.synced')).toEqual({
      ...event,
      type: 'data_source.synced',
      event: 'data_source.synced',
    });
  });
});

describe('Domain: delivery schedule (D29)', () => {
  it('waits 5 s, 30 s, 5 min and 1 h, and gives up after the 5th attempt', () => {
    expect([1, 2, 3, 4, 5].map(retryDelayAfter)).toEqual([5, 30, 300, 3600, null]);
    expect(MAX_DELIVERY_ATTEMPTS).toBe(5);
  });

  it('derives one delivery id per webhook and event, shaped like any dlv_ id', () => {
    const event = newId('event');
    const a = deliveryIdFor('wh_a', event);
    expect(a).toBe(deliveryIdFor('wh_a', event));
    expect(a).not.toBe(deliveryIdFor('wh_b', event));
    expect(isId('delivery', a)).toBe(true);
    expect(a.slice(4, 14)).toBe(event.slice(4, 14)); // sorts with its event
  });
});

describe('Domain: webhook signatures', () => {
  const body = '{"id":"evt_1","type":"agent.created"}';

  it('signs the raw body with the secret as the spec says (hex HMAC-SHA256)', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(svcSignature(body, secret)).toMatch(/^[0-9a-f]{64}$/);
    expect(svcSignature(`${body} `, secret)).not.toBe(svcSignature(body, secret));
    // RFC 4231, test case 2: HMAC-SHA256 keyed "Jefe".
    expect(svcSignature('what do ya want for nothing?', 'Jefe')).toBe(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
  });

  it('signs id.timestamp.body for Standard Webhooks with the decoded secret', () => {
    // The Standard Webhooks specification's published example.
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const signature = standardWebhookSignature(
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      1614265330,
      '{"test": 2432232314}',
      secret,
    );
    expect(signature).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('compares signatures in constant time and refuses the empty one', () => {
    const signature = svcSignature(body, 'whsec_x');
    expect(signaturesMatch(signature, signature)).toBe(true);
    expect(signaturesMatch(signature, signature.replace(/.$/, '0'))).toBe(signature.endsWith('0'));
    expect(signaturesMatch(signature, '')).toBe(false);
    expect(signaturesMatch('', '')).toBe(false);
    // Not hex at all decodes to nothing on both sides: still no match.
    expect(signaturesMatch('zz', 'yy')).toBe(false);
  });
});
