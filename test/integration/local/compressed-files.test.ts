import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { CompressedFiles } from '../../../lib/local/compressed-files';

/** Text with enough variety that Brotli's best level does better than its quick one. */
const SCRIPT = Array.from(
  { length: 400 },
  (_, index) => `export const line${index} = "${'abcdefghij'.repeat(index % 7)} ${index * 7919}";`,
).join('\n');

describe("The console's files, compressed and kept", () => {
  let directory: string;
  let file: string;

  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'compressed-files-'));
    file = join(directory, 'main-ABC123.js');
    writeFileSync(file, SCRIPT);
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  const get = (files: CompressedFiles, encoding: 'br' | 'gzip') => {
    const { mtimeMs, size } = statSync(file);
    return files.get(file, mtimeMs, size, encoding);
  };

  it('answers at once with a quick compression, then with the best one made in the background', async () => {
    const files = new CompressedFiles();

    const first = await get(files, 'br');
    let later = first;
    for (let tries = 0; later === first && tries < 100; tries += 1) {
      await new Promise((done) => setTimeout(done, 20));
      later = await get(files, 'br');
    }

    expect(brotliDecompressSync(first).toString('utf8')).toBe(SCRIPT);
    expect(later).not.toBe(first);
    expect(later.length).toBeLessThanOrEqual(first.length);
    expect(brotliDecompressSync(later).toString('utf8')).toBe(SCRIPT);
    // Kept: the same bytes again, not compressed anew.
    expect(await get(files, 'br')).toBe(later);
  });

  it('keeps each encoding apart', async () => {
    const files = new CompressedFiles();

    expect(gunzipSync(await get(files, 'gzip')).toString('utf8')).toBe(SCRIPT);
    expect(brotliDecompressSync(await get(files, 'br')).toString('utf8')).toBe(SCRIPT);
  });

  it('compresses a rebuilt file again', async () => {
    const files = new CompressedFiles();
    await get(files, 'br');

    writeFileSync(file, `${SCRIPT}\nexport const rebuilt = true;`);

    expect(brotliDecompressSync(await get(files, 'br')).toString('utf8')).toContain('rebuilt');
  });
});
