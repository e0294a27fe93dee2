import type { BedrockConnection, BedrockConnectionOptions } from './bedrock-connection';

type ConnectionModule = typeof import('./bedrock-connection');
let connectionModule: Promise<ConnectionModule> | undefined;

/**
 * A Bedrock connection made at its first use. The SDK is loaded then, with
 * `import()`, as other first-use packages are (P209): the query function's
 * init, and a deployment on another provider, never read it.
 */
export function lazyBedrockConnection(
  options: BedrockConnectionOptions,
): () => Promise<BedrockConnection> {
  let connection: Promise<BedrockConnection> | undefined;
  return () => {
    connectionModule ??= import('./bedrock-connection');
    connection ??= connectionModule.then((loaded) => loaded.connectBedrock(options));
    // A failed load is tried again at the next call rather than remembered.
    connection.catch(() => {
      connection = undefined;
    });
    return connection;
  };
}
