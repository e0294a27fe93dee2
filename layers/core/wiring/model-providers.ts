import { BedrockAnswerer } from '../adapters/ai/bedrock-answerer';
import type { BedrockSettings } from '../adapters/ai/bedrock-models';
import { OpenAiAnswerer } from '../adapters/ai/openai-answerer';
import { type DeploymentModels, OFFLINE_MODEL } from '../domain/deployment-models';
import { InvalidRequestError } from '../domain/errors';
import type { Answerer } from '../ports/answerer.port';
import type { Embedder } from '../ports/embedder.port';
import { embedderFor, type OpenAiSettings, openAiConnection } from './model-embedder';

export type { BedrockSettings, OpenAiSettings } from './model-embedder';

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
  const extractive = answererLoadedOnFirstUse(
    async () => new (await import('../adapters/ai/extractive-answerer')).ExtractiveAnswerer(),
  );
  const chat = bedrock
    ? new BedrockAnswerer({
        modelId: bedrock.answerModel,
        region: bedrock.region,
        endpoint: bedrock.endpoint,
      })
    : openAi
      ? new OpenAiAnswerer(openAiConnection(openAi))
      : null;
  const embedder = embedderFor(openAi, bedrock);
  return {
    embedder,
    deployment: deploymentModelsOf(openAi, bedrock),
    answererFor: (model) => {
      if (model === OFFLINE_MODEL) return extractive;
      if (chat) return chat;
      throw new InvalidRequestError(
        `The agent's model "${model}" needs a model provider, and none is configured; set the agent's model to ${OFFLINE_MODEL}, or configure a model provider (on one machine SVC_MODEL_PROVIDER=bedrock or OPENAI_API_KEY; in the cloud the deployment's modelProvider=bedrock or modelApiKeySecret)`,
        { fields: [{ path: 'model', message: 'no provider configured for this model' }] },
      );
    },
  };
}

/**
 * An answerer whose module is evaluated when it first answers, not when the
 * function starts: the offline answerer builds its sentence segmenter and word
 * tables as its modules load, which a function whose agents answer with a
 * provider's model, or a request that never reaches an answer, does not need.
 */
function answererLoadedOnFirstUse(load: () => Promise<Answerer>): Answerer {
  let loaded: Promise<Answerer> | undefined;
  return {
    async *answer(request) {
      loaded ??= load();
      yield* (await loaded).answer(request);
    },
  };
}
