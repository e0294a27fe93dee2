import { BedrockAnswerer } from '../adapters/ai/bedrock-answerer';
import { BedrockEmbedder } from '../adapters/ai/bedrock-embedder';
import type { BedrockSettings } from '../adapters/ai/bedrock-models';
import { ExtractiveAnswerer, OFFLINE_EXTRACTIVE_MODEL } from '../adapters/ai/extractive-answerer';
import { OfflineHashEmbedder } from '../adapters/ai/offline-embedder';
import { OpenAiAnswerer } from '../adapters/ai/openai-answerer';
import { OpenAiEmbedder } from '../adapters/ai/openai-embedder';
import type { DeploymentModels } from '../domain/deployment-models';
import { InvalidRequestError } from '../domain/errors';
import type { Answerer } from '../ports/answerer.port';
import type { Embedder } from '../ports/embedder.port';

export type { BedrockSettings } from '../adapters/ai/bedrock-models';

/** `OPENAI_API_KEY` (and `OPENAI_BASE_URL` for any compatible endpoint). */
export interface OpenAiSettings {
  /** The key, or how to read it before each request (the cloud's Secrets Manager secret). */
  readonly apiKey: string | (() => Promise<string>);
  readonly baseURL?: string | undefined;
}

/**
 * D20/D36 and issue 32: embeddings and answers from Amazon Bedrock (the
 * deployment's own provider, reached with its AWS credentials) or OpenAI
 * (a key) when configured, the offline defaults otherwise. Three adapters of
 * each port: `offline-extractive` always answers offline; any other model
 * name needs a provider. Under Bedrock every such agent answers with the
 * deployment's model, the only one its role may invoke.
 */
export interface ModelProviders {
  readonly embedder: Embedder;
  readonly answererFor: (model: string) => Answerer;
  /** What `answererFor` can answer with, for the agents' model check and list. */
  readonly deployment: DeploymentModels;
}

/** Which provider the settings pick, as `modelProviders` picks it (Bedrock first). */
export function deploymentModelsOf(
  openAi: Pick<OpenAiSettings, 'baseURL'> | null,
  bedrock: Pick<BedrockSettings, 'answerModel'> | null,
): DeploymentModels {
  if (bedrock) return { provider: 'bedrock', answerModel: bedrock.answerModel };
  if (openAi) return { provider: openAi.baseURL ? 'openai_compatible' : 'openai' };
  return { provider: 'offline' };
}

export function modelProviders(
  openAi: OpenAiSettings | null,
  bedrock: BedrockSettings | null = null,
): ModelProviders {
  const extractive = new ExtractiveAnswerer();
  const connection = openAi
    ? { apiKey: openAi.apiKey, ...(openAi.baseURL ? { baseURL: openAi.baseURL } : {}) }
    : null;
  const where = bedrock ? { region: bedrock.region, endpoint: bedrock.endpoint } : {};
  const chat = bedrock
    ? new BedrockAnswerer({ modelId: bedrock.answerModel, ...where })
    : connection
      ? new OpenAiAnswerer(connection)
      : null;
  const embedder = bedrock
    ? new BedrockEmbedder({
        model: bedrock.embeddingModel,
        ...(bedrock.embeddingDimensions === undefined
          ? {}
          : { dimensions: bedrock.embeddingDimensions }),
        ...where,
      })
    : connection
      ? new OpenAiEmbedder(connection)
      : new OfflineHashEmbedder();
  return {
    embedder,
    deployment: deploymentModelsOf(openAi, bedrock),
    answererFor: (model) => {
      if (model === OFFLINE_EXTRACTIVE_MODEL) return extractive;
      if (chat) return chat;
      throw new InvalidRequestError(
        `The agent's model "${model}" needs a model provider, and none is configured; set the agent's model to ${OFFLINE_EXTRACTIVE_MODEL}, or configure a model provider (on one machine SVC_MODEL_PROVIDER=bedrock or OPENAI_API_KEY; in the cloud the deployment's modelProvider=bedrock or modelApiKeySecret)`,
        { fields: [{ path: 'model', message: 'no provider configured for this model' }] },
      );
    },
  };
}
