/**
 * `npm run complete-lockfile`: adds lock entries for optional platform
 * binaries that the package registry here does not serve (decisions P19).
 *
 * npm leaves such packages (Biome's, SWC's, jest's resolver's binaries for
 * other platforms) out of package-lock.json when it cannot fetch them, and
 * `npm ci` then refuses the lockfile as out of sync. An entry marked
 * `optional` with the platform it is for is all `npm ci` needs: it skips the
 * package on any other platform without fetching it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

interface LockEntry {
  version?: string;
  optional?: boolean;
  os?: string[];
  optionalDependencies?: Record<string, string>;
}

const PLATFORMS = ['android', 'darwin', 'win32', 'freebsd', 'openharmony', 'linux', 'sunos', 'aix'];
const lockPath = join(__dirname, '..', 'package-lock.json');
const lock = JSON.parse(readFileSync(lockPath, 'utf8')) as { packages: Record<string, LockEntry> };

const added: string[] = [];
for (const [path, entry] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    if (lock.packages[key] || lock.packages[`${path}/${key}`]) continue;
    const os = PLATFORMS.find((platform) => name.includes(platform));
    lock.packages[key] = { version, optional: true, ...(os ? { os: [os] } : {}) };
    added.push(`${name}@${version}`);
  }
}

const [root, ...rest] = Object.keys(lock.packages);
const sorted = [root ?? '', ...rest.sort()];
lock.packages = Object.fromEntries(sorted.map((key) => [key, lock.packages[key] ?? {}]));
writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
console.log(
  added.length === 0
    ? 'package-lock.json is complete'
    : `Added ${added.length}: ${added.join(', ')}`,
);
