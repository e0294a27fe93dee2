import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import {
  BEDROCK_DEFAULTS,
  BEDROCK_EMBEDDING_MODEL_IDS,
  isBedrockEmbeddingModel,
} from '../../adapters/ai/bedrock-models';
import { parseCloudConfig } from '../../config';
import { traceAwsClient } from '../../observability/tracing';
import { ModelUnavailableError } from '../../ports/answerer.port';
import { ModelRequestError } from '../../ports/model-request-error';
import type { BedrockSettings, OpenAiSettings } from '../model-embedder';

/** The deployment's model provider, as `modelProviders` and `embedderFor` take it. */
export interface CloudModelSettings {
  readonly openAi: OpenAiSettings | null;
  readonly bedrock: BedrockSettings | null;
}

/**
 * D36 and issue 32 in the cloud. With `MODEL_PROVIDER=bedrock` Amazon
 * Bedrock serves embeddings and answers, signed with the function's role in
 * its own region (the SDK's default chain); the Bedrock client is loaded at
 * the first model call, not at init. Otherwise, without `MODEL_API_KEY_SECRET` the offline embedder and
 * extractive answerer run. With it, OpenAI (or the compatible endpoint
 * `OPENAI_BASE_URL`) serves embeddings and every model but
 * `offline-extractive`; the key is the secret's value, read through
 * Powertools Parameters when a model is first called and cached for
 * `MODEL_API_KEY_MAX_AGE_SECONDS`, so a rotated key takes effect within
 * that time without a deploy. Nothing is read at init.
 */
export function cloudModelSettings(): CloudModelSettings {
  const config = parseCloudConfig('models');
  if (config.MODEL_PROVIDER === 'bedrock') {
    const embeddingModel = config.BEDROCK_EMBEDDING_MODEL ?? BEDROCK_DEFAULTS.embeddingModel;
    if (!isBedrockEmbeddingModel(embeddingModel)) {
      throw new Error(
        `Invalid function configuration (models): BEDROCK_EMBEDDING_MODEL: must be one of ${BEDROCK_EMBEDDING_MODEL_IDS.join(', ')}`,
      );
    }
    // A length the model does not make fails here too, at init, naming both (BedrockEmbedder).
    return {
      openAi: null,
      bedrock: {
        answerModel: config.BEDROCK_ANSWER_MODEL ?? BEDROCK_DEFAULTS.answerModel,
        embeddingModel,
        // Unset: the model's own length (Titan Text Embeddings V2's is 1024).
        embeddingDimensions: config.BEDROCK_EMBEDDING_DIMENSIONS,
      },
    };
  }
  const secretName = config.MODEL_API_KEY_SECRET;
  if (!secretName) return { openAi: null, bedrock: null };
  const secrets = new SecretsProvider({
    awsSdkV3Client: traceAwsClient(new SecretsManagerClient({})),
  });
  const apiKey = async (): Promise<string> => {
    let value: unknown;
    try {
      value = await secrets.get(secretName, { maxAge: config.MODEL_API_KEY_MAX_AGE_SECONDS });
    } catch (error) {
      throw secretReadError(secretName, error);
    }
    const key = typeof value === 'string' ? value.trim() : '';
    if (key === '') {
      // A deployment error, not the caller's: the secret exists but holds no key.
      throw new ModelRequestError(
        `The model API key secret ${secretName} is empty`,
        'authentication',
        null,
      );
    }
    return key;
  };
  return { openAi: { apiKey, baseURL: config.OPENAI_BASE_URL }, bedrock: null };
}

/** Seconds a caller is asked to wait when Secrets Manager itself is unavailable. */
const SECRET_RETRY_AFTER_SECONDS = 5;

/**
 * Secrets Manager down or throttling is worth a retry (503); a missing
 * secret, a denied read or a key the role may not decrypt is the
 * deployment's to fix, and fails like a wrong key would.
 */
function secretReadError(secretName: string, error: unknown): Error {
  // Powertools wraps the SDK's exception; its `cause` carries the service's verdict.
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  const fault = (cause as { $fault?: string } | null)?.$fault;
  const name = cause instanceof Error ? cause.name : 'unknown error';
  if (fault === 'client' && name !== 'ThrottlingException') {
    return new ModelRequestError(
      `The model API key secret ${secretName} could not be read (${name})`,
      'authentication',
      null,
      { cause },
    );
  }
  return new ModelUnavailableError(
    `The model API key secret ${secretName} could not be read for now (${name})`,
    SECRET_RETRY_AFTER_SECONDS,
    { cause },
  );
}
