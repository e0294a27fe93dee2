/** `npx svc …`: organizations, API keys and users for the local service or a stack, and a local webhook receiver. */
import { runCli } from '../lib/local/admin-cli';

/** Standard input, whole (`users create --password-stdin`). */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

runCli(process.argv.slice(2), {
  out: (line) => console.log(line),
  env: process.env,
  readStdin,
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  },
);
