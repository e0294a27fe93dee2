/**
 * Loads one organization's embedded index from a directory in a fresh
 * process and prints how long that took and the process's memory after it,
 * as JSON: what a local user's `npm start` pays for that index (the
 * `embedded-index-*` sections of `npm run bench`), and how long touching
 * fresh memory takes in this process (the machine's floor for any load).
 *
 * tsx test/bench/index-load-probe.ts <directory> <orgId> <exact|ann>
 */
import { EmbeddedIndex } from '../../layers/core/adapters/local/embedded-index';

/** MiB of new memory touched, page by page, after the load. */
const FLOOR_MIB = 256;

async function main(): Promise<void> {
  const [directory = '', orgId = '', mode = 'ann'] = process.argv.slice(2);
  const rssBefore = process.memoryUsage().rss;
  const started = performance.now();
  const index = new EmbeddedIndex({
    directory,
    ann: mode === 'exact' ? { minVectors: Number.POSITIVE_INFINITY } : {},
  });
  const chunks = await index.count({ orgId });
  const loadSeconds = (performance.now() - started) / 1000;
  const memory = process.memoryUsage();
  // What fresh memory costs here: a load cannot be faster than making its memory resident.
  const touched = new Uint8Array(FLOOR_MIB * 1024 * 1024);
  const touchStarted = performance.now();
  for (let at = 0; at < touched.length; at += 4096) touched[at] = 1;
  const freshMemoryMsPerMiB = (performance.now() - touchStarted) / FLOOR_MIB;
  console.log(
    JSON.stringify({
      chunks,
      loadSeconds,
      rssMiB: memory.rss / 1024 ** 2,
      rssGrowthMiB: (memory.rss - rssBefore) / 1024 ** 2,
      freshMemoryMsPerMiB,
    }),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
