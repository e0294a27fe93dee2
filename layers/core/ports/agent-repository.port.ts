import type { Agent, AgentChanges } from '../domain/agent';
import type { DomainEvent } from '../domain/events';
import type { Page, PageRequest } from '../domain/pagination';

/** An agent that answers with an organization's model key: enough to name and link it. */
export interface ModelKeyUser {
  readonly id: string;
  readonly name: string;
  readonly model_key_id: string;
}

/** An entity with the version its next conditional write must match. */
export interface Versioned<T> {
  readonly entity: T;
  readonly version: number;
}

/**
 * Agents of one organization; every call is scoped by `orgId`. Writes take
 * the events they cause and store them in the same item write (the outbox).
 */
export interface AgentRepository {
  create(orgId: string, agent: Agent, events: readonly DomainEvent[]): Promise<void>;
  get(orgId: string, id: string): Promise<Agent | null>;
  getVersioned(orgId: string, id: string): Promise<Versioned<Agent> | null>;
  list(orgId: string, page: PageRequest): Promise<Page<Agent>>;
  /**
   * Applies the changes atomically if the agent is still at `expectedVersion`;
   * `null` when it does not exist or has changed since.
   */
  update(
    orgId: string,
    id: string,
    changes: AgentChanges & { readonly updated_at: string },
    write: { readonly expectedVersion: number; readonly events: readonly DomainEvent[] },
  ): Promise<Agent | null>;
  /** `false` when the agent did not exist. */
  delete(orgId: string, id: string, events: readonly DomainEvent[]): Promise<boolean>;
  /** Ids of the organization's agents that list `dataSourceId`. */
  idsReferencing(orgId: string, dataSourceId: string): Promise<string[]>;
  /**
   * The organization's agents that answer with a model key, by name;
   * with `modelKeyId`, only that key's (model keys list them, a refused
   * delete names them).
   */
  modelKeyUsers(orgId: string, modelKeyId?: string): Promise<ModelKeyUser[]>;
}
