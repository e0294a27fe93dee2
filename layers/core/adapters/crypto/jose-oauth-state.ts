import { hkdfSync } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import * as z from 'zod/mini';
import { isId } from '../../domain/ids';
import type { OAuthStateClaims, OAuthStateSigner } from '../../ports/connector.port';

const ALGORITHM = 'HS256';
/** Its own token type and audience: a state is never a session, nor a session a state. */
const TYPE = 'svc-oauth-state+jwt';
const AUDIENCE = 'svc:connector-oauth-callback';

const claimsSchema = z.object({
  jti: z.string().check(z.minLength(20), z.maxLength(100)),
  org: z.string().check(z.refine((value) => isId('organization', value))),
  ds: z.string().check(z.refine((value) => isId('dataSource', value))),
  sub: z.string().check(z.minLength(1), z.maxLength(100)),
  exp: z.int().check(z.positive()),
});

/**
 * The connector sign-in's `state` is a JWT (HS256 pinned) binding the
 * flow to its organization, data source and caller, expiring with the flow.
 * Its key is derived (HKDF) from the session signing secret, so the secret
 * itself signs nothing but sessions and a state cannot pass for a session.
 */
export class JoseOAuthStateSigner implements OAuthStateSigner {
  constructor(private readonly signingSecret: () => Promise<Uint8Array>) {}

  async sign(claims: OAuthStateClaims): Promise<string> {
    return new SignJWT({ org: claims.orgId, ds: claims.dataSourceId })
      .setProtectedHeader({ alg: ALGORITHM, typ: TYPE })
      .setJti(claims.flowId)
      .setSubject(claims.principalId)
      .setAudience(AUDIENCE)
      .setExpirationTime(claims.expiresAt)
      .sign(await this.key());
  }

  async verify(state: string, now: Date): Promise<OAuthStateClaims | null> {
    let payload: unknown;
    try {
      ({ payload } = await jwtVerify(state, await this.key(), {
        algorithms: [ALGORITHM],
        typ: TYPE,
        audience: AUDIENCE,
        currentDate: now,
        requiredClaims: ['jti', 'sub', 'exp'],
      }));
    } catch {
      // Forged, altered, of another key or type, expired: all alike.
      return null;
    }
    const parsed = claimsSchema.safeParse(payload);
    if (!parsed.success) return null;
    const { jti, org, ds, sub, exp } = parsed.data;
    return { flowId: jti, orgId: org, dataSourceId: ds, principalId: sub, expiresAt: exp };
  }

  private async key(): Promise<Uint8Array> {
    const secret = await this.signingSecret();
    return new Uint8Array(hkdfSync('sha256', secret, '', 'svc connector oauth state', 32));
  }
}
