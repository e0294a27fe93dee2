import { createHmac } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import * as z from 'zod/mini';
import { isId } from '../../domain/ids';
import { SESSION_POLICY, type SessionClaims, SIGN_IN_METHODS } from '../../domain/session';
import type { SessionTokens } from '../../ports/session.port';

/** The one algorithm signed and accepted; `none`, RS256, HS512 and the rest are refused. */
const ALGORITHM = 'HS256';

const claimsSchema = z.object({
  sub: z.string().check(z.refine((value) => isId('user', value))),
  org: z.string().check(z.refine((value) => isId('organization', value))),
  jti: z.string().check(z.refine((value) => isId('session', value))),
  iat: z.int().check(z.nonnegative()),
  exp: z.int().check(z.positive()),
  auth_time: z.int().check(z.nonnegative()),
  // Optional, so tokens issued before it existed still verify (as password sessions).
  auth_method: z.optional(z.enum(SIGN_IN_METHODS)),
});

/**
 * Session JWTs with `jose`: HS256 pinned, the deployment's key only,
 * every claim required and checked for shape, and no token living past 30
 * days from its sign-in whatever its `exp` says. The key comes from
 * `signingKey` on each call (the cloud caches its secret), so a rotated
 * secret is picked up without a restart.
 */
export class JoseSessionTokens implements SessionTokens {
  constructor(private readonly signingKey: () => Promise<Uint8Array>) {}

  async issue(claims: SessionClaims): Promise<string> {
    const { sub, org, jti, iat, exp, auth_time, auth_method } = claims;
    return new SignJWT({ org, auth_time, ...(auth_method ? { auth_method } : {}) })
      .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
      .setSubject(sub)
      .setJti(jti)
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .sign(await this.signingKey());
  }

  async verify(token: string, now: Date): Promise<SessionClaims | null> {
    let payload: unknown;
    try {
      ({ payload } = await jwtVerify(token, await this.signingKey(), {
        algorithms: [ALGORITHM],
        typ: 'JWT',
        currentDate: now,
        requiredClaims: ['sub', 'org', 'jti', 'iat', 'exp', 'auth_time'],
      }));
    } catch {
      // Malformed, forged, of another algorithm or key, expired: all alike to the caller.
      return null;
    }
    const parsed = claimsSchema.safeParse(payload);
    if (!parsed.success) return null;
    const claims = parsed.data;
    // The web session's absolute cap holds even for a token someone minted with a longer exp.
    if (claims.exp > claims.auth_time + SESSION_POLICY.absoluteSeconds) return null;
    if (claims.auth_time > claims.iat) return null;
    return claims;
  }

  async csrfToken(sessionId: string): Promise<string> {
    // A key of its own, derived: the CSRF token never reveals anything about the signing key's MACs.
    return createHmac('sha256', await this.signingKey())
      .update(`csrf-token\u0000${sessionId}`)
      .digest('base64url');
  }
}
