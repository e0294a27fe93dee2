import { ExtractiveAnswerer, OFFLINE_EXTRACTIVE_MODEL } from '../adapters/ai/extractive-answerer';
import { OfflineHashEmbedder } from '../adapters/ai/offline-embedder';
import { OpenAiAnswerer } from '../adapters/ai/openai-answerer';
import { OpenAiEmbedder } from '../adapters/ai/openai-embedder';
import { InvalidRequestError } from '../domain/errors';
import type { Answerer } from '../ports/answerer.port';
import type { Embedder } from '../ports/embedder.port';

/** `OPENAI_API_KEY` (and `OPENAI_BASE_URL` for any compatible endpoint, D36). */
export interface OpenAiSettings {
  /** The key, or how to read it before each request (the cloud's Secrets Manager secret). */
  readonly apiKey: string | (() => Promise<string>);
  readonly baseURL?: string | undefined;
}

/**
 * D20/D36: embeddings and answers from OpenAI when a key is configured, the
 * offline defaults otherwise. `offline-extractive` always answers offline; any
 * other model name needs the provider.
 */
export interface ModelProviders {
  readonly embedder: Embedder;
  readonly answererFor: (model: string) => Answerer;
}

export function modelProviders(openAi: OpenAiSettings | null): ModelProviders {
  const extractive = new ExtractiveAnswerer();
  const connection = openAi
    ? { apiKey: openAi.apiKey, ...(openAi.baseURL ? { baseURL: openAi.baseURL } : {}) }
    : null;
  const chat = connection ? new OpenAiAnswerer(connection) : null;
  return {
    embedder: connection ? new OpenAiEmbedder(connection) : new OfflineHashEmbedder(),
    answererFor: (model) => {
      if (model === OFFLINE_EXTRACTIVE_MODEL) return extractive;
      if (chat) return chat;
      throw new InvalidRequestError(
        `The agent's model "${model}" needs a model provider, and none is configured; set the agent's model to ${OFFLINE_EXTRACTIVE_MODEL}, or configure a model provider (OPENAI_API_KEY on one machine, the deployment's modelApiKeySecret in the cloud)`,
        { fields: [{ path: 'model', message: 'no provider configured for this model' }] },
      );
    },
  };
}
