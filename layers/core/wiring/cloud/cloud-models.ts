import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { parseCloudConfig } from '../../config';
import { traceAwsClient } from '../../observability/tracing';
import { ModelRequestError } from '../../ports/model-request-error';
import { type ModelProviders, modelProviders } from '../model-providers';

/**
 * D36 in the cloud. Without `MODEL_API_KEY_SECRET` the offline embedder and
 * extractive answerer run. With it, OpenAI (or the compatible endpoint
 * `OPENAI_BASE_URL`) serves embeddings and every model but
 * `offline-extractive`; the key is the secret's value, read through
 * Powertools Parameters when a model is first called and cached for
 * `MODEL_API_KEY_MAX_AGE_SECONDS`, so a rotated key takes effect within
 * that time without a deploy. Nothing is read at init.
 */
export function cloudModels(): ModelProviders {
  const config = parseCloudConfig('models');
  const secretName = config.MODEL_API_KEY_SECRET;
  if (!secretName) return modelProviders(null);
  const secrets = new SecretsProvider({
    awsSdkV3Client: traceAwsClient(new SecretsManagerClient({})),
  });
  const apiKey = async (): Promise<string> => {
    const value = await secrets.get(secretName, { maxAge: config.MODEL_API_KEY_MAX_AGE_SECONDS });
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
  return modelProviders({ apiKey, baseURL: config.OPENAI_BASE_URL });
}
