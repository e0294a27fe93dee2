import { type AgentAccess, mayUseAgent } from './agent-access';
import type { EventType } from './events';
import type { Role } from './user';

/**
 * What a webhook's owner may see when an event is published or a
 * delivery attempted, read then (as a session reads it at each request).
 */
export type WebhookAudience =
  /** An API key (keys belong to the organization and are never restricted). */
  | { readonly kind: 'organization' }
  /** An active user: their effective role and the agents their groups allow now. */
  | { readonly kind: 'user'; readonly role: Role; readonly agents: AgentAccess }
  /** No owner recorded, or a user deactivated or gone: what every member may see, no more. */
  | { readonly kind: 'nobody' };

export const ORGANIZATION_AUDIENCE: WebhookAudience = { kind: 'organization' };
export const NOBODY: WebhookAudience = { kind: 'nobody' };

/** What seeing an event takes. */
export type EventVisibility =
  /** Any member of the organization may read it (data sources: not agent-scoped). */
  | { readonly kind: 'members' }
  /** Whoever may use the agent; `undefined` when the payload names none (seen by no restricted owner). */
  | { readonly kind: 'agent'; readonly agentId: string | undefined }
  /** Whoever may read users: an admin (users are read with `admin`) or an API key. */
  | { readonly kind: 'users' };

const MEMBERS: EventVisibility = { kind: 'members' };
const USERS: EventVisibility = { kind: 'users' };

/** The string at `path` in `data`, if there is one. */
function stringAt(data: unknown, ...path: string[]): string | undefined {
  let value = data;
  for (const step of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string, unknown>)[step];
  }
  return typeof value === 'string' ? value : undefined;
}

const about = (agentId: string | undefined): EventVisibility => ({ kind: 'agent', agentId });

/**
 * Who may see an event of `type` with payload `data`, by the payload
 * each use case writes (domain-events.ts, answer-query.ts, giveFeedback,
 * run-evaluation.ts). Exhaustive, so a new event type must be placed here.
 */
export function visibilityOf(type: EventType, data: unknown): EventVisibility {
  switch (type) {
    case 'interaction.created':
    case 'interaction.completed':
      return about(stringAt(data, 'interaction', 'agentId'));
    case 'interaction.feedback':
      return about(stringAt(data, 'interaction', 'agent_id'));
    case 'agent.created':
    case 'agent.deleted':
      return about(stringAt(data, 'id'));
    case 'agent.updated':
      return about(stringAt(data, 'agent', 'id'));
    case 'eval.completed':
      return about(stringAt(data, 'evaluation', 'agent_id'));
    case 'user.created':
    case 'user.updated':
      return USERS;
    case 'datasource.created':
    case 'datasource.processed':
    case 'datasource.failed':
      return MEMBERS;
  }
}

/** May a webhook whose owner is `audience` receive an event that `visibility` describes? */
export function mayReceive(audience: WebhookAudience, visibility: EventVisibility): boolean {
  if (visibility.kind === 'members' || audience.kind === 'organization') return true;
  if (audience.kind === 'nobody') return false;
  if (visibility.kind === 'users') return audience.role === 'admin';
  return visibility.agentId !== undefined && mayUseAgent(audience.agents, visibility.agentId);
}
