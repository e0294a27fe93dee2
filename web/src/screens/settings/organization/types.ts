import type { components } from '../../../api/schema';

/** The organization as `GET`/`PUT /api/v1/organizations/{id}` answer it. */
export type OrganizationView = components['schemas']['Organization'];
