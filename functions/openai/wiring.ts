import { cloudAnswering } from '../../layers/core/wiring/cloud/cloud-answering';
import { compositionRoot } from '../../layers/core/wiring/composition-root';

/** OpenAI-compatible chat completions: what answering needs; the agents are listed as models. */
export const dependencies = compositionRoot(cloudAnswering);

export type OpenAiDependencies = ReturnType<typeof dependencies>;
