import type { Agent, AgentChanges } from '../domain/agent';
import type { Page, PageRequest } from '../domain/pagination';

/** Agents of one organization; every call is scoped by `orgId`. */
export interface AgentRepository {
  create(orgId: string, agent: Agent): Promise<void>;
  get(orgId: string, id: string): Promise<Agent | null>;
  list(orgId: string, page: PageRequest): Promise<Page<Agent>>;
  /** Applies the changes atomically; `null` when the agent does not exist. */
  update(
    orgId: string,
    id: string,
    changes: AgentChanges,
    updatedAt: string,
  ): Promise<Agent | null>;
  /** `false` when the agent did not exist. */
  delete(orgId: string, id: string): Promise<boolean>;
  /** Ids of the organization's agents that list `dataSourceId`. */
  idsReferencing(orgId: string, dataSourceId: string): Promise<string[]>;
}
