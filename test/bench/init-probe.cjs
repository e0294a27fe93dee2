/**
 * Runs alone in a fresh Node.js process (test/bench/cold-start.ts spawns it,
 * plain `node`, no TypeScript loader): times `require()` of one bundle, which
 * runs the bundle's module scope and so constructs its handler, as the Lambda
 * runtime does during init. Writes `{ "initMs": … }` or `{ "error": … }` to
 * file descriptor 3 and exits, so whatever the bundle logs on stdout or
 * stderr cannot be mistaken for the result, and a timer or socket left open
 * at module scope cannot keep the process alive.
 */
const { writeSync } = require('node:fs');

const bundle = process.argv[2];
const started = process.hrtime.bigint();
let error;
try {
  const loaded = require(bundle);
  if (typeof loaded.handler !== 'function') error = 'the bundle exports no `handler` function';
} catch (caught) {
  error = caught instanceof Error ? caught.message : String(caught);
}
const initNs = process.hrtime.bigint() - started;
writeSync(3, JSON.stringify(error === undefined ? { initMs: Number(initNs) / 1e6 } : { error }));
process.exit(0);
