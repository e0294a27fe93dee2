import { newId } from '../../domain/ids';
import type { Organization } from '../../domain/organization';
import type { Plan } from '../../domain/plans';
import type { Clock } from '../../ports/clock.port';
import type { OrganizationRepository } from '../../ports/organization-repository.port';

export interface OrganizationDependencies {
  readonly organizations: OrganizationRepository;
  readonly clock: Clock;
}

export async function createOrganization(
  deps: OrganizationDependencies,
  input: { name: string; plan: Plan },
): Promise<Organization> {
  const now = deps.clock.now();
  const organization: Organization = {
    id: newId('organization', now.getTime()),
    name: input.name,
    plan: input.plan,
    created_at: now.toISOString(),
  };
  await deps.organizations.create(organization);
  return organization;
}
