import { cloudAnswering } from '../../layers/core/wiring/cloud/cloud-answering';
import { cloudHttpPlatform } from '../../layers/core/wiring/cloud/cloud-http-platform';
import { compositionRoot } from '../../layers/core/wiring/composition-root';

/** OpenAI-compatible chat completions: what answering needs; the agents are listed as models. */
export const dependencies = compositionRoot(() => ({
  ...cloudHttpPlatform(),
  ...cloudAnswering(),
}));

export type OpenAiDependencies = ReturnType<typeof dependencies>;
