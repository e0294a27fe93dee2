import { effectiveAccess } from '../../domain/group';
import type { WebhookOwner } from '../../domain/webhook';
import { NOBODY, ORGANIZATION_AUDIENCE, type WebhookAudience } from '../../domain/webhook-audience';
import type { GroupGrants } from '../../ports/group-repository.port';
import type { UserRepository } from '../../ports/user-repository.port';

/** What reading an owner's access takes: the user with their group ids, and those groups' grants. */
export interface AudienceDependencies {
  readonly users: Pick<UserRepository, 'getWithGroups'>;
  readonly groupGrants: GroupGrants;
}

/**
 * What a webhook's owner may see now. A key reads nothing (keys are
 * never restricted, P80, and belong to the organization, so a revoked key's
 * webhook is not cut off); a user is read as a session check reads them
 * (verifySession): one read of the user, one of their groups' grants when
 * they have groups. No owner, or a user not active or gone, is `nobody`.
 */
export async function audienceOf(
  deps: AudienceDependencies,
  orgId: string,
  owner: WebhookOwner | null,
): Promise<WebhookAudience> {
  if (!owner) return NOBODY;
  if (owner.type === 'api_key') return ORGANIZATION_AUDIENCE;
  const found = await deps.users.getWithGroups(orgId, owner.id);
  if (found?.user.status !== 'active') return NOBODY;
  const grants = await deps.groupGrants.grants(orgId, found.groupIds);
  const access = effectiveAccess(found.user.role, grants);
  return { kind: 'user', role: access.role, agents: access.agents };
}

/**
 * `audienceOf`, read at most once per owner for the life of the returned
 * function (one outbox batch): webhooks of the same owner, and every event
 * of the batch, share the read.
 */
export function audiences(
  deps: AudienceDependencies,
  orgId: string,
): (owner: WebhookOwner | null) => Promise<WebhookAudience> {
  const read = new Map<string, Promise<WebhookAudience>>();
  return (owner) => {
    if (owner?.type !== 'user') return audienceOf(deps, orgId, owner);
    let audience = read.get(owner.id);
    if (!audience) {
      audience = audienceOf(deps, orgId, owner);
      read.set(owner.id, audience);
    }
    return audience;
  };
}
