import type { ModelKey, ModelKeyProvider } from './model-key';
import { MODEL_PRICES } from './model-pricing';

/** The model that answers on every deployment, with no provider and no key. */
export const OFFLINE_MODEL = 'offline-extractive';

/**
 * What the deployment itself answers with, for agents without a model key
 * (the query path's `modelProviders`):
 * - `offline`: no provider; only `offline-extractive` answers;
 * - `openai`: OpenAI's own API, which serves whatever model names it has;
 * - `openai_compatible`: another server speaking OpenAI's API (`OPENAI_BASE_URL`);
 * - `bedrock`: Amazon Bedrock, where every agent that is not offline
 *   answers with the deployment's one model (its role may invoke no other).
 */
export type DeploymentModels =
  | { readonly provider: 'offline' }
  | { readonly provider: 'openai' }
  | { readonly provider: 'openai_compatible' }
  | { readonly provider: 'bedrock'; readonly answerModel: string };

import type { DeploymentProvider } from './deployment-provider';

export { DEPLOYMENT_PROVIDERS, type DeploymentProvider } from './deployment-provider';

/**
 * Whether the deployment can answer with `model` for an agent without a
 * model key: `null` when it can, else the reason in words a person acts on.
 * OpenAI and compatible servers are not asked (saving an agent makes no
 * provider call): they serve names this service cannot list.
 */
export function deploymentModelMisfit(deployment: DeploymentModels, model: string): string | null {
  if (model === OFFLINE_MODEL) return null;
  switch (deployment.provider) {
    case 'offline':
      return `this service has no model provider, so it answers only with ${OFFLINE_MODEL}; choose ${OFFLINE_MODEL}, or a model key and one of its provider's models`;
    case 'bedrock':
      return model === deployment.answerModel
        ? null
        : `this service answers through Amazon Bedrock with ${deployment.answerModel} only; choose ${deployment.answerModel} or ${OFFLINE_MODEL}, or a model key`;
    case 'openai':
    case 'openai_compatible':
      return null;
  }
}

/**
 * OpenAI's chat models the price table knows, newest families first: what
 * the form suggests for OpenAI (any other name the provider has is taken).
 */
const OPENAI_SUGGESTIONS: readonly string[] = Object.keys(MODEL_PRICES).filter(
  (name) => /^(gpt-|o\d)/.test(name) && !/-\d{4}-\d{2}-\d{2}$/.test(name),
);

/** Anthropic's current model aliases (an Anthropic key runs any `claude-…` name). */
const ANTHROPIC_SUGGESTIONS: readonly string[] = [
  'claude-haiku-4-5',
  'claude-sonnet-4-5',
  'claude-opus-4-1',
];

/** One place answers can come from, and the models it can serve. */
export interface ModelChoice {
  /** `null`: the service's own provider; else the organization's model key that pays. */
  readonly model_key_id: string | null;
  /** The key's name (or id) for a model key; the service's words otherwise. */
  readonly label: string;
  readonly provider: DeploymentProvider | ModelKeyProvider;
  /** The models to offer, the first being the one a new agent would take. */
  readonly models: readonly string[];
  /** Whether a model name not in `models` may be typed (the provider decides what exists). */
  readonly other_models: boolean;
}

const SERVICE_LABELS: Readonly<Record<DeploymentProvider, string>> = {
  offline: 'This service (offline, no model provider)',
  openai: 'This service (OpenAI)',
  openai_compatible: 'This service (OpenAI-compatible server)',
  bedrock: 'This service (Amazon Bedrock)',
};

/** The service's own choice: the offline model always, and its provider's models. */
export function serviceChoice(deployment: DeploymentModels): ModelChoice {
  const provided =
    deployment.provider === 'openai'
      ? OPENAI_SUGGESTIONS
      : deployment.provider === 'bedrock'
        ? [deployment.answerModel]
        : [];
  return {
    model_key_id: null,
    label: SERVICE_LABELS[deployment.provider],
    provider: deployment.provider,
    models: [OFFLINE_MODEL, ...provided],
    other_models: deployment.provider === 'openai' || deployment.provider === 'openai_compatible',
  };
}

/** A model key's choice: what its provider runs (never the offline model, which takes no key). */
export function modelKeyChoice(key: ModelKey): ModelChoice {
  return {
    model_key_id: key.id,
    label: key.name ?? key.id,
    provider: key.provider,
    models:
      key.provider === 'openai'
        ? OPENAI_SUGGESTIONS
        : key.provider === 'anthropic'
          ? ANTHROPIC_SUGGESTIONS
          : [],
    other_models: true,
  };
}
