import { AGENT_DEFAULTS, type Agent, type AgentChanges } from '../../domain/agent';
import { type AgentAccess, ALL_AGENTS, mayUseAgent, usableBy } from '../../domain/agent-access';
import { type DeploymentModels, deploymentModelMisfit } from '../../domain/deployment-models';
import {
  ConflictError,
  InvalidRequestError,
  NotFoundError,
  RequestRefusedError,
} from '../../domain/errors';
import { newId } from '../../domain/ids';
import { modelFitsProvider } from '../../domain/model-key';
import { type Page, type PageRequest, pageOf } from '../../domain/pagination';
import type { AgentRepository } from '../../ports/agent-repository.port';
import type { Clock } from '../../ports/clock.port';
import type { DataSourceRepository } from '../../ports/data-source-repository.port';
import type { ModelKeyRepository } from '../../ports/model-key.port';
import { agentCreated, agentDeleted, agentUpdated, changedFields } from '../events/domain-events';

export interface AgentDependencies {
  readonly agents: AgentRepository;
  readonly dataSources: Pick<DataSourceRepository, 'existingIds'>;
  /** An agent may name one of its organization's model keys. */
  readonly modelKeys: Pick<ModelKeyRepository, 'get'>;
  /** What the deployment answers with, for agents without a model key. */
  readonly deploymentModels: DeploymentModels;
  readonly clock: Clock;
}

export interface CreateAgentInput {
  readonly name: string;
  readonly data_source_ids: readonly string[];
  readonly system_prompt?: string | null | undefined;
  readonly rag_strategy?: Agent['rag_strategy'] | undefined;
  readonly model?: string | undefined;
  readonly temperature?: number | undefined;
  readonly max_tokens?: number | undefined;
  readonly status?: Agent['status'] | undefined;
  readonly model_key_id?: string | null | undefined;
}

/**
 * An agent may only name data sources of its own organization. Ids of other
 * organizations are reported exactly like ids that do not exist, so nothing
 * is learnt about other tenants.
 */
async function assertDataSourcesExist(
  deps: AgentDependencies,
  orgId: string,
  ids: readonly string[],
): Promise<void> {
  const unique = [...new Set(ids)];
  if (unique.length !== ids.length) {
    throw new InvalidRequestError('data_source_ids contains duplicates', {
      fields: [{ path: 'data_source_ids', message: 'must not contain duplicates' }],
    });
  }
  const existing = await deps.dataSources.existingIds(orgId, unique);
  const unknown = unique.filter((id) => !existing.has(id));
  if (unknown.length > 0) {
    throw new InvalidRequestError(`Unknown data source ids: ${unknown.join(', ')}`, {
      fields: [{ path: 'data_source_ids', message: 'unknown data source ids' }],
      unknown_data_source_ids: unknown,
    });
  }
}

/**
 * The agent's model must be one something can answer with: without a
 * model key, the deployment's provider (an offline deployment serves only
 * the offline model); with one, the key must be the organization's own
 * (another organization's id answers like one that does not exist) and the
 * model must fit its provider. Refused at save, so a typo is not found by
 * every question failing later.
 */
async function assertModelServable(
  deps: AgentDependencies,
  orgId: string,
  modelKeyId: string | null,
  model: string,
): Promise<void> {
  if (modelKeyId === null) {
    const misfit = deploymentModelMisfit(deps.deploymentModels, model);
    if (misfit) {
      throw new InvalidRequestError(`The model "${model}" cannot answer here: ${misfit}`, {
        fields: [{ path: 'model', message: misfit }],
      });
    }
    return;
  }
  const modelKey = await deps.modelKeys.get(orgId, modelKeyId);
  if (!modelKey) {
    throw new InvalidRequestError(`Unknown model key ${modelKeyId}`, {
      fields: [{ path: 'model_key_id', message: 'unknown model key' }],
    });
  }
  const misfit = modelFitsProvider(model, modelKey.provider);
  if (misfit) {
    throw new InvalidRequestError(`The model "${model}" does not fit the model key: ${misfit}`, {
      fields: [{ path: 'model', message: misfit }],
    });
  }
}

/** An agent the caller may not use answers exactly as one that does not exist. */
function assertUsable(access: AgentAccess, id: string): void {
  if (!mayUseAgent(access, id)) throw new NotFoundError(`No agent ${id}`);
}

/**
 * A user whose groups restrict their agents cannot create agents: the
 * new agent would be outside what they may use, invisible to them at once.
 */
export async function createAgent(
  deps: AgentDependencies,
  orgId: string,
  input: CreateAgentInput,
  access: AgentAccess = ALL_AGENTS,
): Promise<Agent> {
  if (access.kind === 'only') {
    throw new RequestRefusedError(
      'Your groups restrict the agents you may use, so you cannot create agents; ask an admin',
      { reason: 'agents_restricted' },
    );
  }
  await assertDataSourcesExist(deps, orgId, input.data_source_ids);
  await assertModelServable(
    deps,
    orgId,
    input.model_key_id ?? null,
    input.model ?? AGENT_DEFAULTS.model,
  );
  const now = deps.clock.now();
  const agent: Agent = {
    id: newId('agent', now.getTime()),
    name: input.name,
    system_prompt: input.system_prompt ?? null,
    rag_strategy: input.rag_strategy ?? AGENT_DEFAULTS.ragStrategy,
    model: input.model ?? AGENT_DEFAULTS.model,
    temperature: input.temperature ?? AGENT_DEFAULTS.temperature,
    max_tokens: input.max_tokens ?? AGENT_DEFAULTS.maxTokens,
    data_source_ids: [...input.data_source_ids],
    model_key_id: input.model_key_id ?? null,
    status: input.status ?? AGENT_DEFAULTS.status,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  };
  await deps.agents.create(orgId, agent, [agentCreated(orgId, agent, now)]);
  return agent;
}

export async function getAgent(
  deps: Pick<AgentDependencies, 'agents'>,
  orgId: string,
  id: string,
  access: AgentAccess = ALL_AGENTS,
): Promise<Agent> {
  assertUsable(access, id);
  const agent = await deps.agents.get(orgId, id);
  if (!agent) throw new NotFoundError(`No agent ${id}`);
  return agent;
}

export interface AgentFilter {
  /** Only agents whose name contains this, ignoring case. */
  readonly nameContains?: string | undefined;
}

/**
 * A restricted user's list holds, and counts, only the agents they may
 * use: a name filter narrows the list (and its total) before paging.
 */
export async function listAgents(
  deps: AgentDependencies,
  orgId: string,
  page: PageRequest,
  access: AgentAccess = ALL_AGENTS,
  filter: AgentFilter = {},
): Promise<Page<Agent>> {
  const { nameContains } = filter;
  if (access.kind === 'all' && nameContains === undefined) return deps.agents.list(orgId, page);
  // The repository reads the organization's agents whole anyway (agent-repository.ts), so
  // filtering here costs no extra reads; DynamoDB's contains() could not ignore case.
  const all = await deps.agents.list(orgId, { limit: Number.MAX_SAFE_INTEGER, offset: 0 });
  const usable = usableBy(access, all.items, (agent) => agent.id);
  return pageOf(
    nameContains === undefined
      ? usable
      : usable.filter((agent) => nameMatches(agent.name, nameContains)),
    page,
  );
}

/** case-insensitive, and blind to Unicode's ways of writing the same letter (NFKC). */
export function nameMatches(name: string, text: string): boolean {
  const fold = (value: string) => value.normalize('NFKC').toLowerCase();
  return fold(name).includes(fold(text));
}

/** Concurrent updates of one agent retry this often before giving up with 409. */
const UPDATE_ATTEMPTS = 3;

/**
 * Reads the agent, applies the changes, and writes them only if nobody
 * changed the agent meanwhile (its version), so the `agent.updated` event
 * stored with the write describes exactly that write.
 */
export async function updateAgent(
  deps: AgentDependencies,
  orgId: string,
  id: string,
  changes: AgentChanges,
  access: AgentAccess = ALL_AGENTS,
): Promise<Agent> {
  assertUsable(access, id);
  if (changes.data_source_ids) await assertDataSourcesExist(deps, orgId, changes.data_source_ids);
  for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt += 1) {
    const current = await deps.agents.getVersioned(orgId, id);
    if (!current) throw new NotFoundError(`No agent ${id}`);
    if (changes.model_key_id !== undefined || changes.model !== undefined) {
      await assertModelServable(
        deps,
        orgId,
        changes.model_key_id === undefined ? current.entity.model_key_id : changes.model_key_id,
        changes.model ?? current.entity.model,
      );
    }
    const now = deps.clock.now();
    const next: Agent = {
      ...current.entity,
      ...definedOnly(changes),
      updated_at: now.toISOString(),
    };
    const diff = changedFields(current.entity, next);
    const events = Object.keys(diff).length > 0 ? [agentUpdated(orgId, next, diff, now)] : [];
    const updated = await deps.agents.update(
      orgId,
      id,
      { ...definedOnly(changes), updated_at: next.updated_at },
      { expectedVersion: current.version, events },
    );
    if (updated) return updated;
  }
  throw new ConflictError(`Agent ${id} is being changed concurrently; retry`);
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(value).filter(([, field]) => field !== undefined),
  ) as Partial<T>;
}

export async function deleteAgent(
  deps: AgentDependencies,
  orgId: string,
  id: string,
  access: AgentAccess = ALL_AGENTS,
): Promise<void> {
  assertUsable(access, id);
  const deleted = await deps.agents.delete(orgId, id, [agentDeleted(orgId, id, deps.clock.now())]);
  if (!deleted) throw new NotFoundError(`No agent ${id}`);
}
