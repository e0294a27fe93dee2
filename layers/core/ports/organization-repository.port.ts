import type { Organization } from '../domain/organization';

export interface OrganizationRepository {
  create(organization: Organization): Promise<void>;
  get(id: string): Promise<Organization | null>;
}
