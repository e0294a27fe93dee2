import { verifyDelivery } from '../../../lib/local/webhook-verification';
import { signedDelivery, verificationCases } from './webhook-verification-cases';

describe('verifyDelivery: what `npx svc webhooks listen` accepts (D29)', () => {
  it.each(verificationCases().map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const verdict = verifyDelivery(Buffer.from(c.body, 'utf8'), c.headers, c.secret, c.now);
    expect(verdict.ok).toBe(c.valid);
  });

  it('names the secret that signed and the reason for a refusal', () => {
    const [genuine, , , , altered, , , , , , , , , , replayed] = verificationCases();
    expect(
      verifyDelivery(genuine!.body, genuine!.headers, genuine!.secret, genuine!.now),
    ).toMatchObject({ ok: true, eventId: 'evt_01m7y5s0hv4jy55e4cnnc305bc', signedWith: 'current' });
    expect(verifyDelivery(altered!.body, altered!.headers, altered!.secret, altered!.now)).toEqual({
      ok: false,
      reason: 'X-Svc-Signature does not match the body',
    });
    expect(
      verifyDelivery(replayed!.body, replayed!.headers, replayed!.secret, replayed!.now),
    ).toEqual({
      ok: false,
      reason: 'webhook-timestamp is 301 s old (more than 5 minutes: a replay?)',
    });
  });

  it('verifies the old secret through X-Svc-Signature-Previous during a rotation', () => {
    const { body, headers } = signedDelivery(
      {
        current: 'whsec_bmV3LXNlY3JldC1uZXctc2VjcmV0LW5ldy1zZWNyZXQ=',
        previous: 'whsec_b2xkLXNlY3JldC1vbGQtc2VjcmV0LW9sZC1zZWNyZXQ=',
      },
      { at: new Date('2026-11-21T10:00:00.000Z') },
    );
    const now = new Date('2026-11-21T10:00:01.000Z');
    expect(
      verifyDelivery(body, headers, 'whsec_b2xkLXNlY3JldC1vbGQtc2VjcmV0LW9sZC1zZWNyZXQ=', now),
    ).toMatchObject({ ok: true, signedWith: 'previous' });
  });

  it('refuses a body that is not UTF-8 rather than guessing its bytes', () => {
    const { headers } = signedDelivery({
      current: 'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
      previous: null,
    });
    const verdict = verifyDelivery(
      Buffer.from([0x7b, 0xff, 0x7d]),
      headers,
      'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
      new Date('2026-11-21T10:00:01.000Z'),
    );
    expect(verdict).toEqual({ ok: false, reason: 'body is not valid UTF-8' });
  });
});
