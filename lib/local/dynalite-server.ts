import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import dynalite from 'dynalite';
import { listen } from './listen';

export interface LocalDynamoDb {
  readonly endpoint: string;
  readonly port: number;
  end(): Promise<void>;
}

/**
 * dynalite: DynamoDB's API over HTTP on LevelDB, reached by the same AWS SDK
 * adapters as the cloud table. With `path` it persists there; without, it
 * keeps everything in memory (tests).
 */
export async function startDynalite(options: {
  readonly host: string;
  readonly port: number;
  readonly path?: string | undefined;
}): Promise<LocalDynamoDb> {
  if (options.path) mkdirSync(options.path, { recursive: true });
  const server: Server = dynalite({
    ...(options.path ? { path: options.path } : {}),
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
  });
  const { port } = await listen(server, options.port, options.host);
  return {
    endpoint: `http://${options.host}:${port}`,
    port,
    end: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections?.();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
