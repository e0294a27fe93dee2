import type { Organization, OrganizationSettings } from '../domain/organization';
import type { Plan } from '../domain/plans';

/** What may change on an organization: its administrators change name and settings, the operator its plan. */
export interface OrganizationChanges {
  readonly name?: string;
  readonly plan?: Plan;
  readonly settings?: OrganizationSettings;
  readonly updated_at: string;
}

export interface OrganizationRepository {
  create(organization: Organization): Promise<void>;
  get(id: string): Promise<Organization | null>;
  /** The organization as changed; `null` when there is no such organization. */
  update(id: string, changes: OrganizationChanges): Promise<Organization | null>;
}
