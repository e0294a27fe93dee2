import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../layers/core/adapters/dynamodb/document-client';
import { adminDependencies } from '../admin-cli/admin-dependencies';
import type { AdminTarget } from '../admin-cli/admin-target';
import { LocalDatabaseError } from '../admin-cli/cli-errors';
import { isLevelDbLocked } from './leveldb-lock';
import { type LocalConfig, parseLocalConfig } from './local-config';

/**
 * Reaches the local DynamoDB: the running server's dynalite if there is one,
 * else the data directory directly (LevelDB allows one process at a time,
 * which is why a running server is reached over HTTP instead).
 */
export async function connectToLocalService(env: NodeJS.ProcessEnv): Promise<AdminTarget> {
  const config = parseLocalConfig(env);
  if (config.SVC_DYNAMODB_PORT !== 0) {
    const endpoint = `http://127.0.0.1:${config.SVC_DYNAMODB_PORT}`;
    const running = createDocumentClient({ endpoint, maxAttempts: 1 });
    try {
      await running.send(new ListTablesCommand({}));
      const client = createDocumentClient({ endpoint });
      running.destroy();
      return adminTarget(config, client, async () => client.destroy());
    } catch (error) {
      running.destroy();
      if (!isConnectionRefused(error)) {
        throw new LocalDatabaseError(
          `Something answers on 127.0.0.1:${config.SVC_DYNAMODB_PORT} (SVC_DYNAMODB_PORT), but not as the service's DynamoDB: ${firstLine(error)}`,
          { cause: error },
        );
      }
    }
  }
  const path = join(config.dataDir, 'dynamodb');
  if (!existsSync(path)) {
    throw new LocalDatabaseError(
      `No local data in ${config.dataDir}: run \`npm start\` once first`,
    );
  }
  // A server that holds the data while nothing answers on the port means the port is wrong.
  if (await isLevelDbLocked(path)) {
    throw new LocalDatabaseError(
      `The service is running on ${config.dataDir}, but its DynamoDB does not answer on port ${config.SVC_DYNAMODB_PORT} (SVC_DYNAMODB_PORT): use the port \`npm start\` printed`,
    );
  }
  // Loaded only here: dynalite and LevelDB cost a tenth of a second that other calls need not pay.
  const { startDynalite } = await import('./dynalite-server');
  const dynamo = await startDynalite({ host: '127.0.0.1', port: 0, path });
  const client = createDocumentClient({ endpoint: dynamo.endpoint });
  return adminTarget(config, client, async () => {
    client.destroy();
    await dynamo.end();
  });
}

function adminTarget(
  config: LocalConfig,
  client: DynamoDBDocumentClient,
  close: () => Promise<void>,
): AdminTarget {
  // Local runs are `test`; `--env live` is still allowed for trying keys out.
  return { deps: adminDependencies(client, config.SVC_TABLE_NAME), environment: null, close };
}

/** The SDK wraps socket errors; the code may sit on the error or on its cause. */
function isConnectionRefused(error: unknown): boolean {
  for (let current: unknown = error; current instanceof Error; current = current.cause) {
    if ((current as NodeJS.ErrnoException).code === 'ECONNREFUSED') return true;
    if (current.message.includes('ECONNREFUSED')) return true;
  }
  return false;
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}
