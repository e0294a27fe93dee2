import {
  ConflictError,
  InvalidRequestError,
  ModelProviderRateLimitedError,
  NotFoundError,
  ServiceUnavailableError,
} from '../../domain/errors';
import { newId } from '../../domain/ids';
import {
  type ModelKey,
  type ModelKeyProvider,
  modelKeySealingContext,
} from '../../domain/model-key';
import type { Page, PageRequest } from '../../domain/pagination';
import type { AgentRepository, ModelKeyUser } from '../../ports/agent-repository.port';
import type { Clock } from '../../ports/clock.port';
import type { ModelKeyRepository, ModelKeyVerifier } from '../../ports/model-key.port';
import type { SecretSealer } from '../../ports/webhook-repository.port';

export interface ModelKeyManagementDependencies {
  readonly modelKeys: ModelKeyRepository;
  readonly modelKeyVerifier: ModelKeyVerifier;
  readonly secretSealer: SecretSealer;
  readonly agents: Pick<AgentRepository, 'modelKeyUsers'>;
  readonly clock: Clock;
}

/** An agent as a model key names it: enough to show and link it. */
export interface AgentRef {
  readonly id: string;
  readonly name: string;
}

/**
 * A model key as the API returns it: the entity and the agents that
 * answer with it, so an administrator sees what a key is for and what a
 * delete would touch before trying it.
 */
export interface ModelKeyView extends ModelKey {
  readonly agents: readonly AgentRef[];
}

/** The agents of `users` that use key `id`, by name (then id, for equal names). */
function agentsOf(users: readonly ModelKeyUser[], id: string): AgentRef[] {
  return users
    .filter((user) => user.model_key_id === id)
    .map((user) => ({ id: user.id, name: user.name }))
    .sort((a, b) => a.name.localeCompare(b.name) || (a.id < b.id ? -1 : 1));
}

/** "A", "A and B", "A, B and C". */
function namesInWords(agents: readonly AgentRef[]): string {
  const names = agents.map((agent) => agent.name);
  if (names.length <= 1) return names.join('');
  return `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

export interface CreateModelKeyInput {
  readonly provider: ModelKeyProvider;
  readonly key: string;
  readonly endpoint?: string | undefined;
  readonly name?: string | null | undefined;
}

/**
 * Registers an organization's model key. The endpoint rule first (a
 * `custom` key needs one, the hosted providers take none), then one cheap
 * call to the provider with the key — a refusal is a 400 with the
 * provider's reason and nothing is stored — then the key is sealed under
 * its own row's encryption context and stored; only `last4` is ever shown.
 */
export async function createModelKey(
  deps: ModelKeyManagementDependencies,
  orgId: string,
  input: CreateModelKeyInput,
): Promise<ModelKeyView> {
  const endpoint = input.endpoint ?? null;
  if (input.provider === 'custom' && endpoint === null) {
    throw new InvalidRequestError('A custom provider needs its OpenAI-compatible endpoint', {
      fields: [{ path: 'endpoint', message: 'required when provider is custom' }],
    });
  }
  if (input.provider !== 'custom' && endpoint !== null) {
    throw new InvalidRequestError(`The ${input.provider} provider takes no endpoint`, {
      fields: [{ path: 'endpoint', message: 'only for provider custom' }],
    });
  }

  const check = await deps.modelKeyVerifier.check({
    provider: input.provider,
    apiKey: input.key,
    endpoint,
  });
  if (!check.ok) {
    const details = { provider: input.provider, provider_reason: check.reason };
    switch (check.kind) {
      case 'refused':
        throw new InvalidRequestError(`The provider refused the key: ${check.reason}`, {
          fields: [{ path: 'key', message: 'refused by the provider' }],
          ...details,
        });
      case 'endpoint':
        throw new InvalidRequestError(`The endpoint cannot be used: ${check.reason}`, {
          fields: [{ path: 'endpoint', message: check.reason }],
          ...details,
        });
      case 'rate_limited':
        throw new ModelProviderRateLimitedError(
          `The provider is rate limiting this key; retry after ${check.retryAfterSeconds} s: ${check.reason}`,
          check.retryAfterSeconds,
          details,
        );
      case 'unavailable':
        throw new ServiceUnavailableError(
          `The provider could not check the key now: ${check.reason}`,
          check.retryAfterSeconds,
        );
    }
  }

  const now = deps.clock.now();
  const id = newId('modelKey', now.getTime());
  const modelKey: ModelKey = {
    id,
    name: input.name ?? null,
    provider: input.provider,
    endpoint,
    last4: input.key.slice(-4),
    created_at: now.toISOString(),
  };
  const sealed = await deps.secretSealer.seal(input.key, modelKeySealingContext(orgId, id));
  await deps.modelKeys.create(orgId, modelKey, sealed);
  // A new key has no agents yet: nothing can have named its id.
  return { ...modelKey, agents: [] };
}

async function findModelKey(
  deps: Pick<ModelKeyManagementDependencies, 'modelKeys'>,
  orgId: string,
  id: string,
): Promise<ModelKey> {
  const found = await deps.modelKeys.get(orgId, id);
  if (!found) throw new NotFoundError(`No model key ${id}`);
  return found;
}

export async function getModelKey(
  deps: Pick<ModelKeyManagementDependencies, 'modelKeys' | 'agents'>,
  orgId: string,
  id: string,
): Promise<ModelKeyView> {
  const found = await findModelKey(deps, orgId, id);
  const users = await deps.agents.modelKeyUsers(orgId, id);
  return { ...found, agents: agentsOf(users, id) };
}

/** A page of keys, each with its agents: one read of the organization's agents for the page. */
export async function listModelKeys(
  deps: Pick<ModelKeyManagementDependencies, 'modelKeys' | 'agents'>,
  orgId: string,
  page: PageRequest,
): Promise<Page<ModelKeyView>> {
  const keys = await deps.modelKeys.list(orgId, page);
  const users = keys.items.length > 0 ? await deps.agents.modelKeyUsers(orgId) : [];
  return { ...keys, items: keys.items.map((key) => ({ ...key, agents: agentsOf(users, key.id) })) };
}

/**
 * A key that agents use is not deleted (409 naming them): deleting it
 * would silently move their answers onto the service's account, or break
 * them. Detach it from the agents (`model_key_id: null`) or delete them first.
 * The refusal names them by name too (`details.agents`), so a person
 * is told which agents to change, not a list of ids.
 */
export async function deleteModelKey(
  deps: Pick<ModelKeyManagementDependencies, 'modelKeys' | 'agents'>,
  orgId: string,
  id: string,
): Promise<void> {
  await findModelKey(deps, orgId, id);
  const users = agentsOf(await deps.agents.modelKeyUsers(orgId, id), id);
  if (users.length > 0) {
    throw new ConflictError(
      `Model key ${id} is used by ${namesInWords(users)}; set their model_key_id to null (or another key) or delete them first`,
      { agent_ids: users.map((agent) => agent.id), agents: users },
    );
  }
  const deleted = await deps.modelKeys.delete(orgId, id);
  if (!deleted) throw new NotFoundError(`No model key ${id}`);
}
