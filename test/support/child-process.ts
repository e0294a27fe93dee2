import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

export const REPO_ROOT = join(__dirname, '..', '..');

/** How people run things: `npm start` is `tsx bin/local.ts`, `npx svc` is `bin/svc.cjs`. */
export const ENTRY_POINTS = {
  start: [
    join(REPO_ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'),
    join(REPO_ROOT, 'bin', 'local.ts'),
  ],
  svc: [join(REPO_ROOT, 'bin', 'svc.cjs')],
} as const;

export interface Finished {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

export interface Running {
  readonly child: ChildProcess;
  /** Resolves with stdout so far once it matches `pattern`; rejects if the process ends first. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** SIGTERM, then the outcome. */
  stop(): Promise<Finished>;
  readonly finished: Promise<Finished>;
}

/** A clean environment: only what a shell would pass, plus `env`. */
function environment(env: Record<string, string>): NodeJS.ProcessEnv {
  const { PATH, HOME, TMPDIR } = process.env;
  return {
    ...(PATH ? { PATH } : {}),
    ...(HOME ? { HOME } : {}),
    ...(TMPDIR ? { TMPDIR } : {}),
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    ...env,
  };
}

/**
 * Starts `entry`. With `ownProcessGroup`, it leads a process group of its
 * own, so `killTree` can end it with everything it started (`npm start` is
 * tsx's CLI, which runs the server as its child), as a crash of the machine
 * or the OOM killer would.
 */
export function start(
  entry: readonly string[],
  args: readonly string[],
  env: Record<string, string>,
  options: { readonly ownProcessGroup?: boolean } = {},
): Running {
  const began = Date.now();
  const child = spawn(process.execPath, [...entry, ...args], {
    cwd: REPO_ROOT,
    env: environment(env),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.ownProcessGroup ?? false,
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const finished = new Promise<Finished>((resolve) => {
    child.on('close', (code) => resolve({ code, stdout, stderr, ms: Date.now() - began }));
  });
  return {
    child,
    finished,
    waitFor: (pattern, timeoutMs = 20_000) =>
      new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => {
          cleanup();
          reject(
            new Error(`timed out waiting for ${pattern}; stdout: ${stdout} stderr: ${stderr}`),
          );
        }, timeoutMs);
        const check = () => {
          if (pattern.test(stdout)) {
            cleanup();
            resolve(stdout);
          }
        };
        const ended = () => {
          cleanup();
          reject(new Error(`ended before ${pattern}; stdout: ${stdout} stderr: ${stderr}`));
        };
        const cleanup = () => {
          clearTimeout(timer);
          child.stdout?.off('data', check);
          child.off('close', ended);
        };
        child.stdout?.on('data', check);
        child.on('close', ended);
        check();
      }),
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return finished;
    },
  };
}

/** Runs to the end (killed after `timeoutMs`). */
export async function run(
  entry: readonly string[],
  args: readonly string[],
  env: Record<string, string>,
  timeoutMs = 30_000,
): Promise<Finished> {
  const running = start(entry, args, env);
  const timer = setTimeout(() => running.child.kill('SIGKILL'), timeoutMs);
  try {
    return await running.finished;
  } finally {
    clearTimeout(timer);
  }
}

/** SIGKILL to the whole process group of a process started with `ownProcessGroup`; resolves once it has ended. */
export async function killTree(running: Running): Promise<Finished> {
  const pid = running.child.pid;
  if (pid !== undefined) process.kill(-pid, 'SIGKILL');
  return running.finished;
}
