import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { JoseSessionTokens } from '../../../../layers/core/adapters/crypto/jose-session-tokens';
import { newId } from '../../../../layers/core/domain/ids';
import { SESSION_POLICY, type SessionClaims } from '../../../../layers/core/domain/session';

const DAY = 24 * 3600;
const SIGNED_IN = 1_900_000_000;

const key = randomBytes(32);
const tokens = new JoseSessionTokens(async () => key);

const claims = (overrides: Partial<SessionClaims> = {}): SessionClaims => ({
  sub: newId('user'),
  org: newId('organization'),
  jti: newId('session'),
  iat: SIGNED_IN,
  exp: SIGNED_IN + SESSION_POLICY.slidingSeconds,
  auth_time: SIGNED_IN,
  ...overrides,
});

/** A moment while the token is valid. */
const during = (session: SessionClaims) => new Date((session.iat + 60) * 1000);

/** A token signed with `key` (or another) whose payload and header we choose, as an attacker could. */
async function minted(
  payload: Record<string, unknown>,
  options: { alg?: string; typ?: string; key?: Uint8Array } = {},
): Promise<string> {
  return new SignJWT(payload)
    .setProtectedHeader({ alg: options.alg ?? 'HS256', typ: options.typ ?? 'JWT' })
    .sign(options.key ?? key);
}

describe('Class: JoseSessionTokens (D12)', () => {
  it('verifies the claims of a token it issued, as they were', async () => {
    const session = claims({ auth_method: 'sso' });

    const token = await tokens.issue(session);

    expect(await tokens.verify(token, during(session))).toEqual(session);
  });

  it('leaves auth_method out when the session has none (read later as a password sign-in)', async () => {
    const session = claims();

    const verified = await tokens.verify(await tokens.issue(session), during(session));

    expect(verified).toEqual(session);
    expect(verified).not.toHaveProperty('auth_method');
  });

  it('refuses a token once its exp has passed, and admits it until then', async () => {
    const session = claims();
    const token = await tokens.issue(session);

    expect(await tokens.verify(token, new Date((session.exp - 1) * 1000))).not.toBeNull();
    expect(await tokens.verify(token, new Date((session.exp + 1) * 1000))).toBeNull();
  });

  it('refuses a token signed with another key, and a rotated key refuses the old tokens', async () => {
    const session = claims();
    const other = new JoseSessionTokens(async () => randomBytes(32));
    let current = key;
    const rotating = new JoseSessionTokens(async () => current);
    const beforeRotation = await rotating.issue(session);

    current = randomBytes(32);

    expect(await other.verify(await tokens.issue(session), during(session))).toBeNull();
    expect(await rotating.verify(beforeRotation, during(session))).toBeNull();
    expect(await rotating.verify(await rotating.issue(session), during(session))).toEqual(session);
  });

  it('refuses any other algorithm, with the same key, and an unsigned token', async () => {
    const session = claims();
    const payload = { ...session };
    const hs512 = await minted(payload, { alg: 'HS512' });
    const [, body] = (await minted(payload)).split('.');
    const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${body}.`;

    expect(await tokens.verify(await minted(payload), during(session))).toEqual(session);
    expect(await tokens.verify(hs512, during(session))).toBeNull();
    expect(await tokens.verify(unsigned, during(session))).toBeNull();
  });

  it('refuses a token of another type than JWT, and one that is not a token at all', async () => {
    const session = claims();

    expect(
      await tokens.verify(await minted({ ...session }, { typ: 'at+jwt' }), during(session)),
    ).toBeNull();
    expect(await tokens.verify('not.a.token', during(session))).toBeNull();
    expect(await tokens.verify('', during(session))).toBeNull();
  });

  it.each(['sub', 'org', 'jti', 'iat', 'exp', 'auth_time'] as const)(
    'refuses a token without %s',
    async (claim) => {
      const session = claims();
      const { [claim]: _left, ...payload } = session;

      expect(await tokens.verify(await minted(payload), during(session))).toBeNull();
    },
  );

  it.each([
    ['a user id that is not a usr_ id', { sub: newId('organization') }],
    ['an organization id that is not an org_ id', { org: newId('user') }],
    ['a session id that is not a sess_ id', { jti: newId('user') }],
    ['a sign-in method it does not know', { auth_method: 'magic-link' }],
    ['a time that is not a whole number', { auth_time: SIGNED_IN + 0.5 }],
    ['a negative sign-in time', { auth_time: -1 }],
  ])('refuses a token with %s', async (_case, change) => {
    const session = claims();

    const token = await minted({ ...session, ...change });

    expect(await tokens.verify(token, during(session))).toBeNull();
  });

  it('refuses a token whose exp reaches past 30 days from sign-in, however it was signed', async () => {
    const limit = SIGNED_IN + SESSION_POLICY.absoluteSeconds;
    const atTheCap = claims({ iat: limit - DAY, exp: limit });
    const pastTheCap = claims({ iat: limit - DAY, exp: limit + 1 });

    expect(await tokens.verify(await minted({ ...atTheCap }), during(atTheCap))).toEqual(atTheCap);
    expect(await tokens.verify(await minted({ ...pastTheCap }), during(pastTheCap))).toBeNull();
  });

  it('refuses a token issued before its own sign-in, and admits one issued at it', async () => {
    const issuedEarlier = claims({ iat: SIGNED_IN - 1 });

    expect(await tokens.verify(await minted({ ...issuedEarlier }), during(claims()))).toBeNull();
    expect(await tokens.verify(await minted({ ...claims() }), during(claims()))).not.toBeNull();
  });

  it('derives one CSRF token per session and key, which reveals neither', async () => {
    const session = newId('session');
    const other = new JoseSessionTokens(async () => randomBytes(32));

    const token = await tokens.csrfToken(session);

    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await tokens.csrfToken(session)).toBe(token);
    expect(await tokens.csrfToken(newId('session'))).not.toBe(token);
    expect(await other.csrfToken(session)).not.toBe(token);
    expect(token).not.toContain(session);
  });
});
