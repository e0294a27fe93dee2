import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/** Thrown when a file holds fewer bytes than its reader was told it has. */
export class TruncatedFileError extends Error {}

/** Closes the descriptor of a file no one reads any more (it is never closed by hand: readers share it). */
const descriptors = new FinalizationRegistry<number>((descriptor) => {
  try {
    closeSync(descriptor);
  } catch {
    // Already closed by the process's end: nothing to release.
  }
});

/**
 * A file read in place, a few bytes at a time, with positioned reads: what
 * the embedded index uses instead of memory-mapping its snapshot (Node.js has
 * no mmap, and the npm packages that add it compile at install). Only the
 * bytes a search asks for are copied into the process; the operating
 * system's page cache keeps the file's hot pages, shared and evictable, so a
 * process's resident memory grows with what its searches touch, not with the
 * file's size.
 *
 * The descriptor stays open as long as anything holds this object, so the
 * file may be renamed over (a newer snapshot) or deleted meanwhile: reads
 * still see the bytes it had when opened.
 */
export class PositionalFile {
  readonly path: string;
  readonly size: number;
  readonly #descriptor: number;

  private constructor(path: string, descriptor: number, size: number) {
    this.path = path;
    this.#descriptor = descriptor;
    this.size = size;
  }

  static open(path: string): PositionalFile {
    const descriptor = openSync(path, 'r');
    const file = new PositionalFile(path, descriptor, fstatSync(descriptor).size);
    descriptors.register(file, descriptor);
    return file;
  }

  /** Fills `target` from `position`; refuses a file that ends first. */
  readInto(target: Uint8Array, position: number): void {
    if (position + target.length > this.size) throw new TruncatedFileError('truncated');
    let done = 0;
    while (done < target.length) {
      // A read may return less than asked (Linux stops at 2 GiB).
      const read = readSync(this.#descriptor, target, done, target.length - done, position + done);
      if (read === 0) throw new TruncatedFileError('truncated');
      done += read;
    }
  }

  /** `length` bytes from `position`, in a buffer of their own. */
  read(position: number, length: number): Buffer {
    const bytes = Buffer.allocUnsafe(length);
    this.readInto(bytes, position);
    return bytes;
  }
}
