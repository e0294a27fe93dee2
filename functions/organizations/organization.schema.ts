import * as z from 'zod/mini';
import { ORGANIZATION_LIMITS } from '../../layers/core/domain/organization';
import { PLANS } from '../../layers/core/domain/plans';

/**
 * Each entry a CIDR range; the use case checks each one and answers
 * 400 naming every bad entry (layers/core/domain/cidr-range.ts).
 */
const ipAllowlist = z
  .array(z.string().check(z.maxLength(ORGANIZATION_LIMITS.cidrMax)))
  .check(z.maxLength(ORGANIZATION_LIMITS.ipAllowlistMax));

/** What an organization's administrators set. */
export const organizationSettings = z.strictObject({ ip_allowlist: ipAllowlist });

/**
 * `PUT /api/v1/organizations/:id`: the name and settings, each optional
 * (settings given are replaced, others kept). `plan` is read-only:
 * accepted only as the current plan, so a read-modify-write round trip works.
 */
export const updateOrganizationBody = z.strictObject({
  name: z.optional(
    z
      .string()
      .check(
        z.trim(),
        z.minLength(1, 'must not be empty'),
        z.maxLength(ORGANIZATION_LIMITS.nameMax),
      ),
  ),
  plan: z.optional(z.enum(PLANS)),
  settings: z.optional(z.partial(organizationSettings)),
});

export const organizationResource = z.object({
  id: z.string(),
  name: z.string(),
  /** D31; changed by the service's operator only. */
  plan: z.enum(PLANS),
  settings: z.object({
    /** Empty when requests are allowed from any address. */
    ip_allowlist: z.array(z.string()),
  }),
  created_at: z.string(),
  updated_at: z.nullable(z.string()),
});
