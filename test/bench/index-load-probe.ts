/**
 * Loads one organization's embedded index from a directory in a fresh
 * process and prints how long that took and the process's memory after it,
 * as JSON: what a local user's `npm start` pays for that index (the
 * `embedded-index-*` sections of `npm run bench`), and how long touching
 * fresh memory takes in this process (the machine's floor for any load).
 *
 * Then it answers one hybrid search (the time to the first answer), and
 * runs the queries in `queries.json` (a vector and words each), hybrid and
 * filtered to 3 of 10 data sources, until 1,000 searches, to report the
 * resident memory after them: it grows with what the searches read.
 *
 * tsx test/bench/index-load-probe.ts <directory> <orgId> <exact|ann> <queries.json> <embedderId> [searches]
 */
import { readFileSync } from 'node:fs';
import { EmbeddedIndex } from '../../layers/core/adapters/local/embedded-index';
import {
  RETRIEVAL_TUNING,
  rankByStrategy,
  strategySettingsFor,
} from '../../layers/core/domain/retrieval/fusion';
import type { SearchFilter } from '../../layers/core/ports/retrieval-index.port';

/** MiB of new memory touched, page by page, after the load. */
const FLOOR_MIB = 256;
/** Searches run after the load before the second memory reading, unless the command line says. */
const SEARCHES = 1_000;

async function main(): Promise<void> {
  const [directory = '', orgId = '', mode = 'ann', queriesFile = '', embedderId = '', limit] =
    process.argv.slice(2);
  const searchesWanted = limit === undefined ? SEARCHES : Number(limit);
  const queries = JSON.parse(readFileSync(queriesFile, 'utf8')) as {
    vector: number[];
    text: string;
  }[];
  const rssBefore = process.memoryUsage().rss;
  const started = performance.now();
  const index = new EmbeddedIndex({
    directory,
    ann: mode === 'exact' ? { minVectors: Number.POSITIVE_INFINITY } : {},
  });
  const chunks = await index.count({ orgId });
  const loadSeconds = (performance.now() - started) / 1000;
  const strategy = strategySettingsFor(embedderId);
  const depth = RETRIEVAL_TUNING.candidates;
  const hybrid = async (filter: SearchFilter, query: { vector: number[]; text: string }) => {
    const knn = await index.knn(filter, query.vector, embedderId, depth);
    const bm25 = await index.bm25(filter, query.text, depth);
    return rankByStrategy('hybrid', { knn, bm25, queryVector: query.vector }, 10, strategy);
  };
  const all: SearchFilter = { orgId };
  const filtered: SearchFilter = { orgId, dataSourceIds: ['ds_1', 'ds_4', 'ds_7'] };
  const first = queries[0];
  if (first) await hybrid(all, first);
  const readySeconds = (performance.now() - started) / 1000;
  const memory = process.memoryUsage();
  let searches = first ? 1 : 0;
  for (let at = 1; searches < searchesWanted && queries.length > 0; at += 1) {
    const query = queries[at % queries.length];
    if (!query) break;
    await hybrid(all, query);
    await hybrid(filtered, query);
    searches += 2;
  }
  const rssAfterQueriesMiB = process.memoryUsage().rss / 1024 ** 2;
  // What fresh memory costs here: a load cannot be faster than making its memory resident.
  const touched = new Uint8Array(FLOOR_MIB * 1024 * 1024);
  const touchStarted = performance.now();
  for (let at = 0; at < touched.length; at += 4096) touched[at] = 1;
  const freshMemoryMsPerMiB = (performance.now() - touchStarted) / FLOOR_MIB;
  console.log(
    JSON.stringify({
      chunks,
      loadSeconds,
      readySeconds,
      rssMiB: memory.rss / 1024 ** 2,
      rssAfterQueriesMiB,
      queries: searches,
      rssGrowthMiB: (memory.rss - rssBefore) / 1024 ** 2,
      freshMemoryMsPerMiB,
    }),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
