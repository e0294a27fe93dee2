import type { BedrockConnection, BedrockConnectionOptions } from './bedrock-connection';

type ConnectionModule = typeof import('./bedrock-connection');
let connectionModule: Promise<ConnectionModule> | undefined;

/**
 * A Bedrock connection made at its first use. The SDK and the HTTP handler
 * are loaded then, with `import`, as other first-use packages are:
 * the query function's init, and a deployment on another provider, never
 * read them. A failed load or connection is tried again at the next call
 * rather than remembered.
 */
export function lazyBedrockConnection(
  options: BedrockConnectionOptions,
): () => Promise<BedrockConnection> {
  let connection: Promise<BedrockConnection> | undefined;
  return () => {
    if (!connection) {
      connectionModule ??= import('./bedrock-connection');
      const made = connectionModule.then((loaded) => loaded.connectBedrock(options));
      made.catch(() => {
        connectionModule = undefined;
        connection = undefined;
      });
      connection = made;
    }
    return connection;
  };
}
