import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/** `SVC_DATA_DIR` cannot hold the service's data; the message names the setting and the reason. */
export class DataDirectoryError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'DataDirectoryError';
  }
}

/**
 * Makes sure `SVC_DATA_DIR` exists and is writable before anything opens it.
 *
 * Directories are created one level at a time on purpose: Node's
 * `mkdirSync(…, { recursive: true })` never returns for some places that
 * cannot hold a directory (`/proc/nope` spins forever on Linux), which made
 * `npm start` hang silently instead of saying what is wrong.
 */
export function prepareDataDirectory(dataDir: string): void {
  try {
    createLevelByLevel(dataDir);
    if (!statSync(dataDir).isDirectory()) throw new Error('not a directory');
    accessSync(dataDir, constants.W_OK);
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : 'unknown');
    throw new DataDirectoryError(
      `SVC_DATA_DIR: cannot keep data in ${dataDir} (${reason}); point it at a writable directory`,
      { cause: error },
    );
  }
}

function createLevelByLevel(directory: string): void {
  try {
    statSync(directory);
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const parent = dirname(directory);
  if (parent !== directory) createLevelByLevel(parent);
  mkdirSync(directory);
}
