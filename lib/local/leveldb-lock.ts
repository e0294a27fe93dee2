import { createRequire } from 'node:module';

interface LevelDatabase {
  open(): Promise<void>;
  close(): Promise<void>;
}
type LevelConstructor = new (path: string) => LevelDatabase;

/**
 * True when another process holds the LevelDB at `path` open (the running
 * `npm start`'s dynalite). dynalite itself does not report this: its first
 * request then fails with "Database is closed" thrown where nobody can catch
 * it, so the CLI asks first, through the same `level` package dynalite uses
 * (resolved from dynalite, so it is never a second copy or a new dependency).
 */
export async function isLevelDbLocked(path: string): Promise<boolean> {
  const fromDynalite = createRequire(require.resolve('dynalite'));
  const { Level } = fromDynalite('level') as { Level: LevelConstructor };
  const database = new Level(path);
  try {
    await database.open();
    return false;
  } catch (error) {
    if (isLocked(error)) return true;
    throw error;
  } finally {
    await database.close().catch(() => {});
  }
}

/** abstract-level wraps the binding's failure: `LEVEL_DATABASE_NOT_OPEN` caused by `LEVEL_LOCKED`. */
function isLocked(error: unknown): boolean {
  for (let current: unknown = error; current instanceof Error; current = current.cause) {
    if ((current as { code?: unknown }).code === 'LEVEL_LOCKED') return true;
  }
  return false;
}
