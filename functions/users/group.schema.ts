import * as z from 'zod';
import { GROUP_LIMITS } from '../../layers/core/domain/group';
import { isId } from '../../layers/core/domain/ids';
import { ROLES } from '../../layers/core/domain/user';
import { paginationQuery } from '../../layers/core/http/pagination.schema';
import { userResource } from '../../layers/core/http/user.schema';

const agentId = z.string().refine((value) => isId('agent', value), 'must be an agt_ id');

/**
 * `POST /api/v1/groups` (issue 9 item 5, P82): a name; a role (default
 * `readonly`); the agents its members may use, or `null` (the default) for
 * no restriction.
 */
export const createGroupBody = z.strictObject({
  name: z.string().trim().min(1, 'must not be empty').max(GROUP_LIMITS.nameMax),
  description: z.string().max(GROUP_LIMITS.descriptionMax).nullable().optional(),
  role: z.enum(ROLES).optional(),
  agent_ids: z.array(agentId).max(GROUP_LIMITS.agentIdsMax).nullable().optional(),
});

/** `PUT /api/v1/groups/:id`: the same fields, all optional. */
export const updateGroupBody = createGroupBody.partial();

export const listGroupsQuery = z.strictObject(paginationQuery);
export const listMembersQuery = z.strictObject(paginationQuery);

/** A group as returned, with its organization. */
export const groupResource = z.object({
  id: z.string(),
  org_id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  role: z.enum(ROLES),
  /** `null`: members are not restricted by this group (P80). */
  agent_ids: z.array(z.string()).nullable(),
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
