import { bedrockEmbedderIdentity } from '../layers/core/adapters/ai/bedrock-models';
import { OfflineHashEmbedder } from '../layers/core/adapters/ai/offline-embedder';
import { openAiEmbedderIdentity } from '../layers/core/adapters/ai/openai-embedder';
import type { IndexedEmbedder } from './constructs/search-index-bootstrap';
import type { BedrockDeploymentSettings, ModelProviderSettings } from './deployment-settings';

/**
 * The embedders the cloud functions may embed with, one chunk index each:
 * the offline embedder always (agents made before a provider was set keep
 * their index), and OpenAI's when the deployment names a model provider,
 * or Bedrock's with `modelProvider=bedrock` (issue 32), which the
 * wiring then embeds with.
 */
export function cloudEmbedders(
  modelProvider: ModelProviderSettings | undefined,
  bedrock?: BedrockDeploymentSettings,
): IndexedEmbedder[] {
  const offline = new OfflineHashEmbedder();
  const embedders: IndexedEmbedder[] = [{ id: offline.id, dimensions: offline.dimensions }];
  if (modelProvider) embedders.push(openAiEmbedderIdentity());
  if (bedrock) {
    embedders.push(
      bedrockEmbedderIdentity({
        model: bedrock.embeddingModel,
        ...(bedrock.embeddingDimensions === undefined
          ? {}
          : { dimensions: bedrock.embeddingDimensions }),
      }),
    );
  }
  return embedders;
}
