import { randomBytes } from 'node:crypto';
import { retryAfterSeconds } from '../../../../layers/core/adapters/connectors/oauth-http';
import { JoseOAuthStateSigner } from '../../../../layers/core/adapters/crypto/jose-oauth-state';
import { JoseSessionTokens } from '../../../../layers/core/adapters/crypto/jose-session-tokens';

const key = randomBytes(32);
const signer = new JoseOAuthStateSigner(async () => key);
const claims = {
  flowId: 'f'.repeat(43),
  orgId: 'org_01jq0000000000000000000000',
  dataSourceId: 'ds_01jq0000000000000000000000',
  principalId: 'key_01jq0000000000000000000000',
  expiresAt: 2_000_000_000,
};
const before = new Date((claims.expiresAt - 60) * 1000);

/** P146: the connector sign-in's state binds organization, data source and caller, and expires. */
describe('OAuth state (P146)', () => {
  it('round-trips its claims before it expires', async () => {
    const state = await signer.sign(claims);

    expect(await signer.verify(state, before)).toEqual(claims);
  });

  it('is refused once expired, altered, or signed with another key', async () => {
    const state = await signer.sign(claims);
    const other = new JoseOAuthStateSigner(async () => randomBytes(32));
    const [header, payload, signature] = state.split('.');
    const tampered = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString());
    tampered.ds = 'ds_01jq9999999999999999999999';
    const altered = `${header}.${Buffer.from(JSON.stringify(tampered)).toString('base64url')}.${signature}`;

    expect(await signer.verify(state, new Date((claims.expiresAt + 1) * 1000))).toBeNull();
    expect(await signer.verify(altered, before)).toBeNull();
    expect(await other.verify(state, before)).toBeNull();
    expect(await signer.verify('', before)).toBeNull();
  });

  it('is never a session, and a session is never a state (derived key, own type)', async () => {
    const sessions = new JoseSessionTokens(async () => key);
    const session = await sessions.issue({
      sub: 'usr_01jq0000000000000000000000',
      org: claims.orgId,
      jti: 'ses_01jq0000000000000000000000',
      iat: claims.expiresAt - 100,
      exp: claims.expiresAt,
      auth_time: claims.expiresAt - 100,
    });
    const state = await signer.sign(claims);

    expect(await signer.verify(session, before)).toBeNull();
    expect(await sessions.verify(state, before)).toBeNull();
  });
});

/** P152: Retry-After as seconds or an HTTP date. */
describe('Retry-After (P152)', () => {
  const now = new Date('2026-11-24T05:00:00Z');

  it.each([
    ['1', 1],
    [' 30 ', 30],
    ['Tue, 24 Nov 2026 05:00:10 GMT', 10],
    ['Tue, 24 Nov 2026 04:59:00 GMT', 0],
    ['soon', null],
    [null, null],
  ])('reads %p as %p seconds', (header, seconds) => {
    expect(retryAfterSeconds(header, now)).toBe(seconds);
  });
});
