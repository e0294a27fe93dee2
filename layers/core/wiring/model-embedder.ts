import { BedrockEmbedder } from '../adapters/ai/bedrock-embedder';
import type { BedrockSettings } from '../adapters/ai/bedrock-models';
import { OfflineHashEmbedder } from '../adapters/ai/offline-embedder';
import { OpenAiEmbedder } from '../adapters/ai/openai-embedder';
import type { Embedder } from '../ports/embedder.port';

export type { BedrockSettings } from '../adapters/ai/bedrock-models';

/** `OPENAI_API_KEY` (and `OPENAI_BASE_URL` for any compatible endpoint). */
export interface OpenAiSettings {
  /** The key, or how to read it before each request (the cloud's Secrets Manager secret). */
  readonly apiKey: string | (() => Promise<string>);
  readonly baseURL?: string | undefined;
}

/** What the OpenAI SDK is given: the key, and the endpoint only when it is not OpenAI's own. */
export function openAiConnection(openAi: OpenAiSettings): OpenAiSettings {
  return { apiKey: openAi.apiKey, ...(openAi.baseURL ? { baseURL: openAi.baseURL } : {}) };
}

/**
 * The embedder the settings pick, as `modelProviders` picks it: Bedrock's,
 * OpenAI's, or the offline hash embedder. A module of its own so that a
 * function that only embeds (search, the indexing workers) does not carry
 * the answerers.
 */
export function embedderFor(
  openAi: OpenAiSettings | null,
  bedrock: BedrockSettings | null = null,
): Embedder {
  if (bedrock) {
    return new BedrockEmbedder({
      model: bedrock.embeddingModel,
      ...(bedrock.embeddingDimensions === undefined
        ? {}
        : { dimensions: bedrock.embeddingDimensions }),
      region: bedrock.region,
      endpoint: bedrock.endpoint,
    });
  }
  return openAi ? new OpenAiEmbedder(openAiConnection(openAi)) : new OfflineHashEmbedder();
}
