import type { Actor } from '../../domain/actor';
import type { Agent } from '../../domain/agent';
import type { DataSource } from '../../domain/data-source';
import type { DomainEvent, EventType } from '../../domain/events';
import { newId } from '../../domain/ids';
import type { User } from '../../domain/user';

/** An event of `type` in `orgId`, stamped `now` (D28 envelope fields). */
export function domainEvent(
  type: EventType,
  orgId: string,
  data: Readonly<Record<string, unknown>>,
  now: Date,
): DomainEvent {
  return {
    id: newId('event', now.getTime()),
    type,
    timestamp: now.toISOString(),
    organizationId: orgId,
    data,
  };
}

/** Spec, Events: "agent object (created)". */
export const agentCreated = (orgId: string, agent: Agent, now: Date) =>
  domainEvent('agent.created', orgId, { ...agent }, now);

/** A changed field's value before and after the update. */
export type FieldChange = { readonly previous: unknown; readonly current: unknown };

/** Spec, Events: "agent object plus changes (updated)": only fields whose value changed. */
export const agentUpdated = (
  orgId: string,
  agent: Agent,
  changes: Record<string, FieldChange>,
  now: Date,
) => domainEvent('agent.updated', orgId, { agent: { ...agent }, changes }, now);

/** Spec, Events: "agent id (deleted)". */
export const agentDeleted = (orgId: string, agentId: string, now: Date) =>
  domainEvent('agent.deleted', orgId, { id: agentId }, now);

export const dataSourceCreated = (orgId: string, source: DataSource, now: Date) =>
  domainEvent('datasource.created', orgId, { ...source }, now);

/**
 * Spec, Events: "user object" (created), and who created them (a
 * user, an API key, or `null` for the operator). A user carries no secret:
 * hashes are kept beside it.
 */
export const userCreated = (orgId: string, user: User, actor: Actor | null, now: Date) =>
  domainEvent('user.created', orgId, { ...user, actor }, now);

/**
 * Spec, Events: "user object plus changes" (updated): only fields whose
 * value changed; and who changed them.
 */
export const userUpdated = (
  orgId: string,
  user: User,
  changes: Record<string, FieldChange>,
  actor: Actor | null,
  now: Date,
) => domainEvent('user.updated', orgId, { user: { ...user }, changes, actor }, now);

/** The fields of `next` whose values differ from `previous` (compared as JSON), `updated_at` aside. */
export function changedFields<T extends object>(previous: T, next: T): Record<string, FieldChange> {
  const changes: Record<string, FieldChange> = {};
  for (const [field, current] of Object.entries(next)) {
    if (field === 'updated_at') continue;
    const before = (previous as Record<string, unknown>)[field];
    if (JSON.stringify(before) !== JSON.stringify(current))
      changes[field] = { previous: before ?? null, current };
  }
  return changes;
}
