import type { Environment } from '../../layers/core/domain/environments';
import type { Organization } from '../../layers/core/domain/organization';
import type { ApiKeyDependencies } from '../../layers/core/use-cases/api-keys/api-key-use-cases';
import type { OrganizationDependencies } from '../../layers/core/use-cases/organizations/organization-use-cases';
import type { UserDependencies } from '../../layers/core/use-cases/users/user-use-cases';

/** What `orgs …`, `keys …` and `users …` need, on whichever table they administer. */
export type AdminDependencies = ApiKeyDependencies &
  OrganizationDependencies &
  UserDependencies & {
    listOrganizations(): Promise<Organization[]>;
  };

/** The table the admin commands work on: the local service's, or a deployed stack's. */
export interface AdminTarget {
  readonly deps: AdminDependencies;
  /**
   * The only environment this target's keys may have (a stack's
   * `environment` tag), or null locally, where `--env` picks (default `test`).
   */
  readonly environment: Environment | null;
  close(): Promise<void>;
}
