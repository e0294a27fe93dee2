import { ApiError } from '../../../api/api-error';
import type { components } from '../../../api/schema';
import { formatWait } from '../../../format/format';

export type ModelKeyList = components['schemas']['ModelKeyList'];
export type ModelKey = ModelKeyList['model_keys'][number];
export type Provider = ModelKey['provider'];
export type AgentRef = ModelKey['agents'][number];

/** D33's providers, in the order their forms appear, each as a person knows it. */
export const PROVIDERS: ReadonlyArray<{
  readonly provider: Provider;
  readonly label: string;
  readonly about: string;
}> = [
  { provider: 'openai', label: 'OpenAI', about: 'A key from your OpenAI organization (sk-…).' },
  {
    provider: 'anthropic',
    label: 'Anthropic',
    about: 'A key from your Anthropic console (sk-ant-…); its agents run Claude models.',
  },
  {
    provider: 'custom',
    label: 'OpenAI-compatible',
    about:
      'A server speaking OpenAI’s API (vLLM, Ollama, LiteLLM, …) at an https address reachable from the internet.',
  },
];

export function providerLabel(provider: Provider): string {
  return PROVIDERS.find((entry) => entry.provider === provider)?.label ?? provider;
}

/** How a key is named in the list and in questions about it: its name, else its provider and ending. */
export function modelKeyTitle(key: Pick<ModelKey, 'name' | 'provider' | 'last4'>): string {
  return key.name ?? `${providerLabel(key.provider)} key …${key.last4}`;
}

/** "A", "A and B", "A, B and C". */
export function namesInWords(names: readonly string[]): string {
  if (names.length <= 1) return names.join('');
  return `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/** Why a key cannot be deleted yet, naming the agents that answer with it. */
export function inUseWords(agents: readonly AgentRef[]): string {
  const names = namesInWords(agents.map((agent) => agent.name));
  return `Used by ${names}: choose another key for ${agents.length === 1 ? 'it' : 'them'} first.`;
}

function agentsIn(details: Readonly<Record<string, unknown>>): AgentRef[] {
  const agents = details.agents;
  if (!Array.isArray(agents)) return [];
  return agents.filter(
    (agent): agent is AgentRef =>
      typeof agent === 'object' &&
      agent !== null &&
      typeof (agent as AgentRef).id === 'string' &&
      typeof (agent as AgentRef).name === 'string',
  );
}

/** The agents a refused delete names (`details.agents`); none for any other failure. */
export function agentsBlockingDelete(error: unknown): AgentRef[] {
  return error instanceof ApiError && error.status === 409 ? agentsIn(error.details) : [];
}

/**
 * A failed save or delete in words about the key, keeping the
 * reference: the provider's own verdict when it refused the key (P132's
 * `details.provider_reason`), what is wrong with a custom endpoint, the
 * provider's rate limit, or its outage; a 409 names the agents. Anything
 * else is left as the console says it.
 */
export function modelKeyFailure(error: unknown, provider: Provider): unknown {
  if (!(error instanceof ApiError)) return error;
  const label = providerLabel(provider);
  const reason =
    typeof error.details.provider_reason === 'string' ? error.details.provider_reason : null;
  const fields = error.fields.map((field) => field.path);
  let message: string | null = null;
  if (error.status === 400 && reason !== null && fields.includes('key')) {
    // The provider's sentence ends with its own full stop; ours follows the closing quote.
    const verdict = reason.replace(/\.\s*$/, '');
    message = `${label} refused this key: “${verdict}”. Nothing was saved: check that you copied the whole key and that it is still active.`;
  } else if (error.status === 400 && fields.includes('endpoint')) {
    const said =
      reason ?? error.fields.find((field) => field.path === 'endpoint')?.message ?? 'refused';
    message = `The endpoint cannot be used: ${said}. Nothing was saved.`;
  } else if (error.status === 429 && error.details.reason === 'model_provider') {
    const wait = error.retryAfter === null ? 'a moment' : formatWait(error.retryAfter);
    message = `${label} is limiting requests with this key: try again in ${wait}. Nothing was saved.`;
  } else if (error.status === 503) {
    message = `${label} could not check the key just now: try again in a few minutes. Nothing was saved.`;
  } else if (error.status === 409 && agentsIn(error.details).length > 0) {
    message = inUseWords(agentsIn(error.details));
  }
  if (message === null) return error;
  return new ApiError(
    error.status,
    error.code,
    message,
    error.serverMessage,
    error.details,
    error.requestId,
    error.retryAfter,
  );
}
