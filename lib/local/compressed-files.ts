import { readFile } from 'node:fs/promises';
import { compress, type Encoding } from './compression';

interface Kept {
  readonly mtimeMs: number;
  readonly size: number;
  /** What the first requests get, made in a few milliseconds. */
  readonly quick: Promise<Buffer>;
  /** Brotli's best (or gzip's), once made in the background. */
  best?: Buffer;
}

/**
 * The console's text files compressed for each encoding, kept in memory
 * while a file keeps its size and mtime (a rebuilt file is compressed
 * again). The first request for a file gets a quick compression; the file is
 * then compressed at the best level in the background, one file at a time,
 * and later requests get that. Brotli's best is about 7 % smaller than its
 * quick level on the console's scripts but some 25 times slower (2.3 s for
 * the whole build on a loaded machine): too slow to make a visitor wait for,
 * or to spend on every file at each start.
 */
export class CompressedFiles {
  private readonly kept = new Map<string, Kept>();
  private readonly queue: (() => Promise<void>)[] = [];
  private working = false;

  get(file: string, mtimeMs: number, size: number, encoding: Encoding): Promise<Buffer> {
    const key = `${encoding}:${file}`;
    const held = this.kept.get(key);
    if (held && held.mtimeMs === mtimeMs && held.size === size) {
      return held.best ? Promise.resolve(held.best) : held.quick;
    }
    const content = readFile(file);
    const kept: Kept = {
      mtimeMs,
      size,
      quick: content.then((body) => compress(body, encoding, 'quick')),
    };
    this.kept.set(key, kept);
    kept.quick.then(
      () =>
        this.later(async () => {
          const best = await compress(await content, encoding, 'best');
          // Kept only if the file was not rebuilt meanwhile.
          if (this.kept.get(key) === kept) kept.best = best;
        }),
      // A failure is not kept: the next request tries again.
      () => {
        if (this.kept.get(key) === kept) this.kept.delete(key);
      },
    );
    return kept.quick;
  }

  /** Runs background work one piece at a time, so it never takes more than one of zlib's threads. */
  private later(work: () => Promise<void>): void {
    this.queue.push(work);
    if (this.working) return;
    this.working = true;
    const next = (): void => {
      const piece = this.queue.shift();
      if (!piece) {
        this.working = false;
        return;
      }
      piece().then(next, next);
    };
    setImmediate(next);
  }
}
