import { cloudAnswering } from '../../layers/core/wiring/cloud/cloud-answering';
import { cloudHttpPlatform } from '../../layers/core/wiring/cloud/cloud-http-platform';
import { compositionRoot } from '../../layers/core/wiring/composition-root';

/** Query: what answering needs (agents, the index, the models, model keys, the interaction recorded). */
export const dependencies = compositionRoot(() => ({
  ...cloudHttpPlatform(),
  ...cloudAnswering(),
}));

export type QueryDependencies = ReturnType<typeof dependencies>;
