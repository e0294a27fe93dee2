import { join } from 'node:path';
import { BEDROCK_DEFAULTS } from '../../layers/core/adapters/ai/bedrock-models';
import { EmbeddedIndex } from '../../layers/core/adapters/local/embedded-index';
import { createOpenSearchClient } from '../../layers/core/adapters/opensearch/client';
import { OpenSearchRetrievalIndex } from '../../layers/core/adapters/opensearch/opensearch-retrieval-index';
import type { RetrievalIndex } from '../../layers/core/ports/retrieval-index.port';
import type { BedrockSettings, OpenAiSettings } from '../../layers/core/wiring/model-providers';
import type { LocalConfig } from './local-config';

/** The retrieval index on one machine: the embedded index under SVC_DATA_DIR, or OpenSearch when OPENSEARCH_URL is set. */
export function localRetrievalIndex(config: LocalConfig): RetrievalIndex {
  if (config.OPENSEARCH_URL) {
    return new OpenSearchRetrievalIndex({
      client: createOpenSearchClient({ url: config.OPENSEARCH_URL, timeoutMs: 10_000 }),
    });
  }
  return new EmbeddedIndex(
    config.SVC_IN_MEMORY ? {} : { directory: join(config.dataDir, 'index') },
  );
}

/**
 * OPENAI_API_KEY (and OPENAI_BASE_URL) switch embeddings and answers to
 * that provider, unless SVC_MODEL_PROVIDER names another.
 */
export function localOpenAiSettings(config: LocalConfig): OpenAiSettings | null {
  const chosen = config.SVC_MODEL_PROVIDER ?? 'openai';
  return chosen === 'openai' && config.OPENAI_API_KEY
    ? { apiKey: config.OPENAI_API_KEY, baseURL: config.OPENAI_BASE_URL }
    : null;
}

/** Issue 32: SVC_MODEL_PROVIDER=bedrock, with the default AWS credential chain. */
export function localBedrockSettings(config: LocalConfig): BedrockSettings | null {
  if (config.SVC_MODEL_PROVIDER !== 'bedrock') return null;
  return {
    answerModel: config.SVC_BEDROCK_ANSWER_MODEL ?? BEDROCK_DEFAULTS.answerModel,
    embeddingModel: config.SVC_BEDROCK_EMBEDDING_MODEL ?? BEDROCK_DEFAULTS.embeddingModel,
    embeddingDimensions: config.SVC_BEDROCK_EMBEDDING_DIMENSIONS,
    region: config.AWS_REGION,
    endpoint: config.AWS_ENDPOINT_URL_BEDROCK_RUNTIME,
  };
}
