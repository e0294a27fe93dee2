import type { operations } from '../../../api/schema';

/** The organization as `GET`/`PUT /api/v1/organizations/{id}` answer it. */
export type OrganizationView =
  operations['getOrganization']['responses'][200]['content']['application/json'];
