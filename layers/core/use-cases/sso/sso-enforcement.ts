import { RequestRefusedError } from '../../domain/errors';
import { emailDomain, SSO_START_PATH } from '../../domain/sso';
import type { SsoRepository } from '../../ports/sso.port';

/** What the password sign-in reads of SSO: two items at most, no SSO library (the auth function stays lean). */
export type SsoEnforcementReader = Pick<SsoRepository, 'getConfiguration' | 'domainOwner'>;

/**
 * `enforce_sso`: the organization that forbids this password
 * sign-in, if any — the user's own organization when it enforces SSO, or
 * the organization that verified the email's domain and enforces it.
 */
export async function enforcingOrganization(
  ssoRepository: SsoEnforcementReader,
  orgId: string,
  email: string,
): Promise<string | null> {
  const domain = emailDomain(email);
  const [own, owner] = await Promise.all([
    ssoRepository.getConfiguration(orgId),
    domain ? ssoRepository.domainOwner(domain) : Promise.resolve(null),
  ]);
  if (own?.enforce_sso) return orgId;
  if (owner && owner !== orgId && (await ssoRepository.getConfiguration(owner))?.enforce_sso) {
    return owner;
  }
  return null;
}

/** 403 (the API's shapes) telling the browser where to sign in instead. */
export function ssoRequired(orgId: string): RequestRefusedError {
  return new RequestRefusedError('This organization requires signing in with SSO', {
    reason: 'sso_required',
    sso_start_url: `${SSO_START_PATH}?org_id=${orgId}`,
  });
}
