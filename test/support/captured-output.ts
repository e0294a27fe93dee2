/**
 * What the process writes to stdout and stderr between `start()` and
 * `stop()`, for suites that scan it for secrets (D33: never logged). The
 * writes still reach the terminal unless `hidden` says otherwise.
 */
export class CapturedOutput {
  /** Every chunk written, and whatever else the suite adds to the scan. */
  readonly seen: string[] = [];
  readonly #original = {
    stdout: process.stdout.write.bind(process.stdout),
    stderr: process.stderr.write.bind(process.stderr),
  };

  /** @param hidden chunks kept for the scan but not printed (e.g. the service's DEBUG lines). */
  constructor(private readonly hidden: (text: string) => boolean = () => false) {}

  start(): void {
    for (const stream of ['stdout', 'stderr'] as const) {
      process[stream].write = ((chunk: unknown, ...rest: unknown[]) => {
        const text = String(chunk);
        this.seen.push(text);
        if (this.hidden(text)) return true;
        return (this.#original[stream] as (...args: unknown[]) => boolean)(chunk, ...rest);
      }) as typeof process.stdout.write;
    }
  }

  stop(): void {
    process.stdout.write = this.#original.stdout as typeof process.stdout.write;
    process.stderr.write = this.#original.stderr as typeof process.stderr.write;
  }
}
