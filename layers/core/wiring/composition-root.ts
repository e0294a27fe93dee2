import { runsOnLambda } from '../config';
import type { Dependencies } from '../ports/dependencies.port';

let provided: Dependencies | undefined;

/**
 * Used by the local runtime and tests: every function of the process uses
 * these instead of building its own. The local runtime runs all functions
 * in one process, so it composes every adapter once (build-dependencies.ts).
 */
export function provideDependencies(all: Dependencies): void {
  provided = all;
}

/**
 * A function's composition root (ARCHITECTURE "Composition"): `buildInCloud`
 * builds exactly the adapters the function's operations use, from the cloud
 * adapter modules (wiring/cloud/), so esbuild leaves out everything else.
 * In Lambda it runs during the init phase, which has a full CPU and comes
 * before the first request; it must not touch the network (SDK clients and
 * adapters only connect when used). Elsewhere it runs on first use, unless
 * dependencies were provided.
 *
 * @example
 * export const dependencies = compositionRoot(() => ({ ...httpPlatform(), agents: … }));
 */
export function compositionRoot<K extends keyof Dependencies>(
  buildInCloud: () => Pick<Dependencies, K>,
): () => Pick<Dependencies, K> {
  let built: Pick<Dependencies, K> | undefined;
  const dependencies = (): Pick<Dependencies, K> => {
    if (provided) return provided;
    built ??= buildInCloud();
    return built;
  };
  if (runsOnLambda()) dependencies();
  return dependencies;
}
