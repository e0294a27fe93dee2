/**
 * An organization's own model provider key. Agents that name it
 * (`model_key_id`) answer with it, billed to the organization's own
 * provider account. The key itself is never part of this entity: it is
 * stored sealed beside it and shown only as `last4`.
 */
export const MODEL_KEY_PROVIDERS = ['openai', 'anthropic', 'custom'] as const;
export type ModelKeyProvider = (typeof MODEL_KEY_PROVIDERS)[number];

export const MODEL_KEY_LIMITS = {
  nameMax: 200,
  /** Provider keys are 50–200 characters today; room for longer ones, not for a document. */
  keyMin: 8,
  keyMax: 1_000,
  endpointMax: 2_048,
} as const;

/** A model key as stored and as returned (field names are the API's). */
export interface ModelKey {
  readonly id: string;
  readonly name: string | null;
  readonly provider: ModelKeyProvider;
  /** `custom` only: the OpenAI-compatible base address (SSRF-checked); `null` otherwise. */
  readonly endpoint: string | null;
  /** The last four characters of the key, so people can tell keys apart. */
  readonly last4: string;
  readonly created_at: string;
}

/**
 * Who pays for an answer's model call — the service's own provider
 * account, or the organization's model key.
 */
export const BILLED_TO = ['service', 'model_key'] as const;
export type BilledTo = (typeof BILLED_TO)[number];

/**
 * Whether a model name fits a provider. Names are checked by their
 * shape only (no call to the provider when an agent is saved): Anthropic's
 * models are all `claude-…`; an OpenAI key cannot run them; a custom
 * endpoint serves whatever it names. The offline model never takes a key.
 */
export function modelFitsProvider(model: string, provider: ModelKeyProvider): string | null {
  if (model === 'offline-extractive') {
    return 'offline-extractive answers without a provider; choose a model of the key’s provider';
  }
  if (provider === 'anthropic' && !/^claude-[a-z0-9.-]+$/i.test(model)) {
    return 'an anthropic key runs Claude models (claude-…)';
  }
  if (provider === 'openai' && /^claude-/i.test(model)) {
    return 'an openai key cannot run Claude models';
  }
  return null;
}

/** The encryption context a model key is sealed under: a ciphertext opens only in its own row. */
export function modelKeySealingContext(orgId: string, modelKeyId: string) {
  return { org_id: orgId, secret_id: modelKeyId, purpose: 'model-key' } as const;
}
