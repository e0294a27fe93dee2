import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConsoleAssetsError, consoleAssetsDirectory } from '../../../../lib/console/console-assets';

/** A repository root of its own, with what `files` names written in it. */
function repository(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'aqs-console-root-'));
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), content);
  }
  return root;
}

/** A build script that writes web/dist/index.html and counts its runs in built.count. */
const WORKING_BUILD = `
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
mkdirSync('web/dist/assets', { recursive: true });
writeFileSync('web/dist/index.html', '<!doctype html>');
const runs = existsSync('built.count') ? Number(readFileSync('built.count', 'utf8')) : 0;
writeFileSync('built.count', String(runs + 1));
`;

describe('Function: consoleAssetsDirectory', () => {
  it('returns web/dist as it is when the console is built, without building again', () => {
    const root = repository({
      'web/dist/index.html': '<!doctype html>',
      'web/build.mjs': WORKING_BUILD,
    });

    expect(consoleAssetsDirectory(root)).toBe(path.join(root, 'web', 'dist'));
    expect(fs.existsSync(path.join(root, 'built.count'))).toBe(false);
  });

  it('builds the console with node web/build.mjs when index.html is missing', () => {
    const root = repository({ 'web/build.mjs': WORKING_BUILD });

    const directory = consoleAssetsDirectory(root);

    expect(directory).toBe(path.join(root, 'web', 'dist'));
    expect(fs.existsSync(path.join(directory, 'index.html'))).toBe(true);
    expect(fs.readFileSync(path.join(root, 'built.count'), 'utf8')).toBe('1');
  });

  it('says the build script is missing when there is neither a build nor a way to make one', () => {
    const root = repository({});

    expect(() => consoleAssetsDirectory(root)).toThrow(ConsoleAssetsError);
    expect(() => consoleAssetsDirectory(root)).toThrow(
      /web\/build\.mjs, which builds it, is missing/,
    );
  });

  it('reports a failing build with its exit code', () => {
    const root = repository({ 'web/build.mjs': 'process.exit(3);' });

    expect(() => consoleAssetsDirectory(root)).toThrow(/failed with exit code 3/);
  });

  it('reports a build that wrote no index.html', () => {
    const root = repository({ 'web/build.mjs': '' });

    expect(() => consoleAssetsDirectory(root)).toThrow(
      /finished without writing web\/dist\/index\.html/,
    );
  });
});
