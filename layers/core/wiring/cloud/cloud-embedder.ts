import type { Embedder } from '../../ports/embedder.port';
import { embedderFor } from '../model-embedder';
import { cloudModelSettings } from './cloud-model-settings';

/**
 * The deployment's embedder alone, for a function that embeds but never
 * answers (search): none of the answerers is bundled or loaded with it.
 */
export function cloudEmbedder(): Embedder {
  const { openAi, bedrock } = cloudModelSettings();
  return embedderFor(openAi, bedrock);
}
