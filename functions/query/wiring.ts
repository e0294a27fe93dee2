import { cloudAnswering } from '../../layers/core/wiring/cloud/cloud-answering';
import { compositionRoot } from '../../layers/core/wiring/composition-root';

/** Query: what answering needs (agents, the index, the models, model keys, the interaction recorded). */
export const dependencies = compositionRoot(cloudAnswering);

export type QueryDependencies = ReturnType<typeof dependencies>;
