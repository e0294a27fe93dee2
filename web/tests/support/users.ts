import { ADMIN } from './fixtures';
import { ApiSession } from './http';
import type { LocalService } from './local-service';

export interface ActiveUser {
  readonly email: string;
  readonly name: string;
  readonly password: string;
}

/**
 * A new active user of the bootstrap organization with a password of its
 * own, as a person gets one (P61: invited by the administrator, the
 * invitation accepted). Each test makes its own, so a changed password or a
 * drained sign-in bucket never reaches another spec sharing the runtime.
 */
export async function activeUser(
  service: LocalService,
  label: string,
  role = 'readonly',
): Promise<ActiveUser> {
  const admin = await ApiSession.signIn(service.url, ADMIN.email, ADMIN.password);
  const unique = `${label}-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
  const user = {
    email: `${unique}@console.test`,
    name: label.charAt(0).toUpperCase() + label.slice(1),
    password: `the password of ${unique}`,
  };
  const invited = await admin.invite(user.email, user.name, role);
  const accepted = await fetch(`${service.url}/api/v1/auth/invitations/accept`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ token: invited.token, password: user.password }),
  });
  if (!accepted.ok) throw new Error(`accept: ${accepted.status} ${await accepted.text()}`);
  return user;
}

/** The status of signing in over HTTP with `password` (P211: `orgId` names the organization). */
export async function signInStatus(
  service: LocalService,
  email: string,
  password: string,
  orgId?: string,
): Promise<number> {
  const response = await fetch(`${service.url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(orgId ? { email, password, org_id: orgId } : { email, password }),
  });
  await response.arrayBuffer();
  return response.status;
}
