/** `npx svc …` (D36): organizations and API keys for the local service, and a local webhook receiver. */
import { runCli } from '../lib/local/admin-cli';

runCli(process.argv.slice(2), { out: (line) => console.log(line), env: process.env }).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  },
);
