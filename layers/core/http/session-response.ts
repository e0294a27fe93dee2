import type { APIGatewayProxyResult } from 'aws-lambda';
import { SESSION_POLICY } from '../domain/session';
import type { User } from '../domain/user';
import type { IssuedSession } from '../use-cases/auth/sessions';
import { CSRF_HEADER } from './middlewares/authenticate';
import { jsonResponse } from './responses';
import { sessionCookie } from './session-cookie';
import { userView } from './user.schema';

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

/** The session as the web application sees it (never the token: that is the HttpOnly cookie). */
export function sessionBody(orgId: string, user: User, session: IssuedSession) {
  const { claims } = session;
  return {
    user: userView(orgId, user),
    csrf_token: session.csrfToken,
    expires_at: iso(claims.exp),
    session_expires_at: iso(claims.auth_time + SESSION_POLICY.absoluteSeconds),
    refresh_after: iso(claims.exp - SESSION_POLICY.refreshWindowSeconds),
  };
}

/**
 * A new session: its cookie, and the CSRF token in a header as well as the
 * body. Sign-in, accepting an invitation and, on one machine, creating
 * the first administrator all answer with it.
 */
export function withNewSession(
  orgId: string,
  user: User,
  session: IssuedSession,
): APIGatewayProxyResult {
  const response = jsonResponse(200, sessionBody(orgId, user, session));
  response.headers = { ...response.headers, [CSRF_HEADER]: session.csrfToken };
  response.multiValueHeaders = {
    'Set-Cookie': [sessionCookie(session.token, session.claims.exp, session.claims.iat)],
  };
  return response;
}
