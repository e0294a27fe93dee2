import type { Agent } from '../../domain/agent';
import {
  InvalidRequestError,
  ModelProviderRateLimitedError,
  ModelProviderRefusedError,
} from '../../domain/errors';
import {
  type BilledTo,
  type ModelKeyProvider,
  modelKeySealingContext,
} from '../../domain/model-key';
import {
  type AnswerEvent,
  type Answerer,
  type AnswerRequest,
  ModelRateLimitedError,
} from '../../ports/answerer.port';
import type { ModelKeyAnswererFactory, ModelKeyRepository } from '../../ports/model-key.port';
import { ModelRequestError } from '../../ports/model-request-error';
import type { SecretSealer } from '../../ports/webhook-repository.port';

export interface ModelKeyAnsweringDependencies {
  /** The service's own answerer for a model. */
  readonly answererFor: (model: string) => Answerer;
  readonly modelKeys: Pick<ModelKeyRepository, 'getSealed'>;
  readonly secretSealer: Pick<SecretSealer, 'open'>;
  readonly answererForModelKey: ModelKeyAnswererFactory;
}

/** Which answerer an agent uses, and who pays for it. */
export interface ChosenAnswerer {
  readonly answerer: Answerer;
  readonly billedTo: BilledTo;
  readonly modelKeyId: string | null;
}

/**
 * An agent with a `model_key_id` answers with that key, opened here
 * under its own row's encryption context (a ciphertext moved from another
 * row or organization does not open), and its provider's refusals become
 * the organization's to fix. Any other agent answers with the
 * service's provider.
 */
export async function answererForAgent(
  deps: ModelKeyAnsweringDependencies,
  orgId: string,
  agent: Agent,
): Promise<ChosenAnswerer> {
  if (agent.model_key_id === null) {
    return { answerer: deps.answererFor(agent.model), billedTo: 'service', modelKeyId: null };
  }
  const modelKeyId = agent.model_key_id;
  const stored = await deps.modelKeys.getSealed(orgId, modelKeyId);
  if (!stored) {
    throw new ModelProviderRefusedError(
      `The agent's model key ${modelKeyId} no longer exists; set the agent's model_key_id to another key or null`,
      { model_key_id: modelKeyId, reason: 'model_key_missing' },
    );
  }
  let apiKey: string;
  try {
    apiKey = await deps.secretSealer.open(
      stored.sealedKey,
      modelKeySealingContext(orgId, modelKeyId),
    );
  } catch {
    // The sealed key does not belong to this row (moved or altered): never used, never shown.
    throw new ModelProviderRefusedError(
      `The model key ${modelKeyId} cannot be opened; delete it and register the key again`,
      { model_key_id: modelKeyId, reason: 'model_key_unreadable' },
    );
  }
  const answerer = await deps.answererForModelKey({
    provider: stored.modelKey.provider,
    apiKey,
    endpoint: stored.modelKey.endpoint,
  });
  return {
    answerer: new OrganizationKeyAnswerer(answerer, modelKeyId, stored.modelKey.provider),
    billedTo: 'model_key',
    modelKeyId,
  };
}

/**
 * What the provider says about an organization's key is the
 * organization's to act on — refusals (bad key, no access to the model,
 * quota) are 424 with the provider's reason, a request the provider finds
 * invalid is 400, rate limiting is 429 with the provider's Retry-After; an
 * outage stays 503. Never a 500.
 */
class OrganizationKeyAnswerer implements Answerer {
  constructor(
    private readonly inner: Answerer,
    private readonly modelKeyId: string,
    private readonly provider: ModelKeyProvider,
  ) {}

  async *answer(request: AnswerRequest): AsyncIterable<AnswerEvent> {
    try {
      yield* this.inner.answer(request);
    } catch (error) {
      throw this.#translate(error);
    }
  }

  #translate(error: unknown): unknown {
    const details = { model_key_id: this.modelKeyId, provider: this.provider };
    if (error instanceof ModelRateLimitedError) {
      return new ModelProviderRateLimitedError(
        `Your ${this.provider} key is rate limited by the provider; ${error.message}`,
        error.retryAfterSeconds,
        details,
        { cause: error },
      );
    }
    if (error instanceof ModelRequestError) {
      const more = { ...details, failure: error.failure, provider_status: error.providerStatus };
      if (error.failure === 'bad_request') {
        return new InvalidRequestError(error.message, more, { cause: error });
      }
      return new ModelProviderRefusedError(error.message, more, { cause: error });
    }
    return error;
  }
}
