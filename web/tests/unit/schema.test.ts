import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..', '..');

/**
 * The console's API types are generated from docs/openapi.json (`npm run
 * web:types`): regenerated here, any difference fails, so a change to the
 * API reaches the console's typecheck (`npm run typecheck` covers web/).
 */
describe('web/src/api/schema.d.ts', () => {
  it('is what openapi-typescript makes of docs/openapi.json now', () => {
    const directory = mkdtempSync(join(tmpdir(), 'console-schema-'));
    try {
      const regenerated = join(directory, 'schema.d.ts');
      execFileSync(
        process.execPath,
        [
          join(ROOT, 'node_modules', 'openapi-typescript', 'bin', 'cli.js'),
          'docs/openapi.json',
          '-o',
          regenerated,
        ],
        { cwd: ROOT, stdio: 'pipe' },
      );
      const committed = readFileSync(join(ROOT, 'web', 'src', 'api', 'schema.d.ts'), 'utf8');

      expect(readFileSync(regenerated, 'utf8') === committed).toBe(true);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
