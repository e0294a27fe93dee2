import * as z from 'zod/mini';
import { GROUP_LIMITS } from '../../layers/core/domain/group';
import { isId } from '../../layers/core/domain/ids';
import { ROLES } from '../../layers/core/domain/user';
import { paginationQuery } from '../../layers/core/http/pagination.schema';
import { userResource } from '../../layers/core/http/user.schema';

const agentId = z.string().check(z.refine((value) => isId('agent', value), 'must be an agt_ id'));

/**
 * `POST /api/v1/groups` (issue 9 item 5): a name; a role (default
 * `readonly`); the agents its members may use, or `null` (the default) for
 * no restriction.
 */
export const createGroupBody = z.strictObject({
  name: z
    .string()
    .check(z.trim(), z.minLength(1, 'must not be empty'), z.maxLength(GROUP_LIMITS.nameMax)),
  description: z.optional(z.nullable(z.string().check(z.maxLength(GROUP_LIMITS.descriptionMax)))),
  role: z.optional(z.enum(ROLES)),
  agent_ids: z.optional(z.nullable(z.array(agentId).check(z.maxLength(GROUP_LIMITS.agentIdsMax)))),
});

/** `PUT /api/v1/groups/:id`: the same fields, all optional. */
export const updateGroupBody = z.partial(createGroupBody);

export const listGroupsQuery = z.strictObject(paginationQuery);
export const listMembersQuery = z.strictObject(paginationQuery);

/** A group as returned, with its organization. */
export const groupResource = z.object({
  id: z.string(),
  org_id: z.string(),
  name: z.string(),
  description: z.nullable(z.string()),
  role: z.enum(ROLES),
  /** `null`: members are not restricted by this group. */
  agent_ids: z.nullable(z.array(z.string())),
  created_at: z.string(),
  updated_at: z.string(),
});

export const groupList = z.object({
  groups: z.array(groupResource),
  total: z.int(),
  limit: z.int(),
  offset: z.int(),
});

export const memberList = z.object({
  members: z.array(userResource),
  total: z.int(),
  limit: z.int(),
  offset: z.int(),
});
