/**
 * Cold-start measurement of a Lambda handler, reusable by the bench and by
 * any later test or script: bundle the handler exactly as the stack does, then
 * time `require()` of the bundle in fresh Node.js processes, the SDK resolved
 * as the Lambda runtime resolves it.
 *
 * @example
 * const bundle = await bundleHandler(join(root, 'functions/agents/handler.ts'), outdir);
 * const environment = lambdaEnvironment({ functionName: 'agents', bundle, nodePath });
 * const sample = await measureInit(bundle.file, environment);
 */
import { spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { bundleFunction } from '../../lib/constructs/function-bundle';
import { FUNCTION_CONFIGURATION } from './function-configuration';

/** The child that times the require; plain CommonJS, run by plain `node`. */
const INIT_PROBE = join(__dirname, 'init-probe.cjs');
/** The child that times the require, then a first and a second invocation. */
const FIRST_REQUEST_PROBE = join(__dirname, 'first-request-probe.cjs');

/** A handler that makes a network call at init could wait forever without this. */
const DEFAULT_TIMEOUT_MS = 60_000;

export interface HandlerBundle {
  /** `index.js`, as Lambda finds it in /var/task. */
  readonly file: string;
  /** Minified `index.js`. */
  readonly bytes: number;
  /** `index.js` at gzip level 9. */
  readonly gzipBytes: number;
  /** `index.js.map`, which Node.js reads when `--enable-source-maps` is on. */
  readonly mapBytes: number;
  /** P209: minified packages shipped beside `index.js`, loaded at their first use, not at init. */
  readonly firstUseBytes: number;
}

/**
 * Bundles `entry` into `outdir` exactly as the stack does
 * (lib/constructs/function-bundle.ts: `@aws-sdk/*` external because the
 * runtime ships it, packages loaded on first use beside `index.js`), with
 * the source map a `functionSourceMaps` deployment ships.
 */
export async function bundleHandler(entry: string, outdir: string): Promise<HandlerBundle> {
  const { file, firstUse } = await bundleFunction(entry, outdir, { sourceMaps: true });
  const output = readFileSync(file);
  return {
    file,
    bytes: output.length,
    gzipBytes: gzipSync(output, { level: 9 }).length,
    mapBytes: readFileSync(`${file}.map`).length,
    firstUseBytes: firstUse.reduce(
      (sum, used) => sum + statSync(join(outdir, 'node_modules', used.name, 'index.js')).size,
      0,
    ),
  };
}

export interface LambdaEnvironmentOptions {
  readonly functionName: string;
  readonly bundle: Pick<HandlerBundle, 'file'>;
  /**
   * Where `@aws-sdk/*` resolves from: the repository's node_modules, standing
   * in for the runtime's /var/runtime/node_modules (also on Lambda's NODE_PATH).
   */
  readonly nodePath: string;
  /** `--enable-source-maps`, as a `functionSourceMaps` deployment sets it (P54); unset by default. */
  readonly nodeOptions?: string;
  /** @default FUNCTION_CONFIGURATION */
  readonly configuration?: Readonly<Record<string, string>>;
}

/**
 * What a deployed function finds in its environment, and nothing of this
 * process's: no TypeScript loader, no NODE_OPTIONS or compile cache leaking in.
 * Dummy credentials let an SDK client be constructed without a credentials
 * lookup; nothing is signed or sent.
 */
export function lambdaEnvironment(options: LambdaEnvironmentOptions): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    NODE_PATH: options.nodePath,
    LANG: 'en_US.UTF-8',
    TZ: ':UTC',
    LAMBDA_TASK_ROOT: dirname(options.bundle.file),
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
    AWS_LAMBDA_FUNCTION_NAME: options.functionName,
    AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '1024',
    AWS_REGION: 'us-east-1',
    AWS_DEFAULT_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'AKIDCOLDSTARTBENCH00',
    AWS_SECRET_ACCESS_KEY: 'cold-start-bench-dummy-secret',
    AWS_SESSION_TOKEN: 'cold-start-bench-dummy-session',
    // The construct's default (lib/constructs/service-function.ts).
    POWERTOOLS_SERVICE_NAME: `svc-${options.functionName}`,
    // Lambda runs Node.js 24, where the SDK has no version warning to print.
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    ...(options.configuration ?? FUNCTION_CONFIGURATION),
    ...(options.nodeOptions ? { NODE_OPTIONS: options.nodeOptions } : {}),
  };
}

/** One fresh process: the require's duration, or why it did not load. */
export type InitSample = { readonly initMs: number } | { readonly error: string };

/** One fresh process that also served a first request after its init. */
export type FirstRequestSample =
  | {
      readonly initMs: number;
      /** The first invocation, right after init. */
      readonly firstMs: number;
      /** The same event again: what the request costs once nothing is left to load. */
      readonly secondMs: number;
      /** `HTTP 401`, `0 failed messages`: what the handler answered. */
      readonly outcome: string;
    }
  | { readonly error: string };

/**
 * Spawns a fresh `node` that requires `bundleFile` under `environment` and
 * reports the time `process.hrtime.bigint()` measured around the require.
 * Never rejects: a bundle that throws, a crash or a timeout is an `error`.
 */
export async function measureInit(
  bundleFile: string,
  environment: Readonly<Record<string, string>>,
  timeoutMs = DEFAULT_TIMEOUT_MS,
): Promise<InitSample> {
  const result = await runProbe(
    [INIT_PROBE, bundleFile],
    dirname(bundleFile),
    environment,
    timeoutMs,
  );
  if ('error' in result) return result;
  const { report } = result;
  return typeof report.initMs === 'number'
    ? { initMs: report.initMs }
    : { error: `unexpected report from the probe: ${JSON.stringify(report)}` };
}

/**
 * As {@link measureInit}, then invokes the handler with `event` (JSON) twice
 * in the same process and times both invocations.
 */
export async function measureFirstRequest(
  bundleFile: string,
  event: string,
  environment: Readonly<Record<string, string>>,
  timeoutMs = DEFAULT_TIMEOUT_MS,
): Promise<FirstRequestSample> {
  const result = await runProbe(
    [FIRST_REQUEST_PROBE, bundleFile, event],
    dirname(bundleFile),
    environment,
    timeoutMs,
  );
  if ('error' in result) return result;
  const { initMs, firstMs, secondMs, outcome } = result.report;
  return typeof initMs === 'number' &&
    typeof firstMs === 'number' &&
    typeof secondMs === 'number' &&
    typeof outcome === 'string'
    ? { initMs, firstMs, secondMs, outcome }
    : { error: `unexpected report from the probe: ${JSON.stringify(result.report)}` };
}

/**
 * Spawns `node <args>` in `cwd` under `environment` alone and reads the JSON
 * object it writes to file descriptor 3. Never rejects: a crash or a timeout
 * is an `error`, as is an `error` the probe reported itself.
 */
export async function runProbe(
  args: readonly string[],
  cwd: string,
  environment: Readonly<Record<string, string>>,
  timeoutMs = DEFAULT_TIMEOUT_MS,
): Promise<ProbeResult> {
  const child = spawn(process.execPath, args, {
    cwd,
    env: environment,
    // stdout is the handler's (its logs); stderr is kept for a crash; fd 3 carries the result.
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    timeout: timeoutMs,
  });
  const result = child.stdio[3];
  const [report, stderr, exit] = await Promise.all([
    result instanceof Readable ? text(result) : Promise.resolve(''),
    child.stderr ? text(child.stderr) : Promise.resolve(''),
    new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
      child.on('error', () => resolve({ code: null, signal: null }));
      child.on('close', (code, signal) => resolve({ code, signal }));
    }),
  ]);
  if (report) return parseReport(report);
  if (exit.signal === 'SIGTERM') return { error: `no result within ${timeoutMs / 1000} s` };
  const lastLine = stderr.trim().split('\n').at(-1);
  return {
    error: `the process exited (${exit.signal ?? `code ${exit.code}`}) without a result${lastLine ? `: ${lastLine}` : ''}`,
  };
}

/** What a probe wrote, or why there is nothing to read. */
export type ProbeResult =
  | { readonly report: Readonly<Record<string, unknown>> }
  | { readonly error: string };

function parseReport(report: string): ProbeResult {
  const parsed: unknown = JSON.parse(report);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { error: `unexpected report from the probe: ${report}` };
  }
  if ('error' in parsed) return { error: firstLine(String(parsed.error)) };
  return { report: parsed as Record<string, unknown> };
}

/** Node's "Cannot find module" carries its require stack on the following lines. */
function firstLine(message: string): string {
  return message.split('\n')[0] ?? message;
}

async function text(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8');
}

/** One thing to measure: a bundle under one environment. */
export interface InitTarget {
  readonly id: string;
  readonly bundleFile: string;
  readonly environment: Readonly<Record<string, string>>;
  /** An event (JSON) to invoke the handler with after init; init alone without it. */
  readonly event?: string;
}

export interface InitMeasurement {
  readonly id: string;
  /** One per process that loaded the bundle, in milliseconds. */
  readonly samplesMs: readonly number[];
  /** With an `event`: each process's first invocation, in milliseconds. */
  readonly firstRequestMs?: readonly number[];
  /** With an `event`: each process's second invocation, in milliseconds. */
  readonly secondRequestMs?: readonly number[];
  /** With an `event`: what the first invocation answered (the last process's). */
  readonly outcome?: string;
  /** Set when the bundle did not load; its remaining processes were skipped. */
  readonly error?: string;
}

export interface InitRunOptions {
  /** Fresh processes per target. */
  readonly processes: number;
  /** Processes running at once. */
  readonly concurrency: number;
  readonly timeoutMs?: number;
  /** Called after each round (every target measured once more). */
  readonly onRound?: (round: number) => void;
}

/**
 * Measures every target `processes` times, round-robin (round 1 measures each
 * target once, then round 2, …) so that a busy spell of the machine spreads
 * over all targets instead of skewing one. `concurrency` processes run at
 * once, taking the next job in that order. A target whose bundle does not load
 * keeps its first error and is not spawned again.
 */
export async function measureInitRoundRobin(
  targets: readonly InitTarget[],
  options: InitRunOptions,
): Promise<InitMeasurement[]> {
  const samples = new Map(targets.map((target) => [target.id, [] as number[]]));
  const firsts = new Map(targets.map((target) => [target.id, [] as number[]]));
  const seconds = new Map(targets.map((target) => [target.id, [] as number[]]));
  const outcomes = new Map<string, string>();
  const errors = new Map<string, string>();
  const jobs = Array.from({ length: options.processes }, (_, round) =>
    targets.map((target) => ({ round, target })),
  ).flat();
  const roundsLeft = new Map<number, number>();
  for (const { round } of jobs) roundsLeft.set(round, (roundsLeft.get(round) ?? 0) + 1);

  let next = 0;
  async function worker(): Promise<void> {
    for (let job = jobs[next++]; job; job = jobs[next++]) {
      const { round, target } = job;
      if (!errors.has(target.id)) {
        if (target.event === undefined) {
          const sample = await measureInit(
            target.bundleFile,
            target.environment,
            options.timeoutMs,
          );
          if ('error' in sample) errors.set(target.id, sample.error);
          else samples.get(target.id)?.push(sample.initMs);
        } else {
          const sample = await measureFirstRequest(
            target.bundleFile,
            target.event,
            target.environment,
            options.timeoutMs,
          );
          if ('error' in sample) errors.set(target.id, sample.error);
          else {
            samples.get(target.id)?.push(sample.initMs);
            firsts.get(target.id)?.push(sample.firstMs);
            seconds.get(target.id)?.push(sample.secondMs);
            outcomes.set(target.id, sample.outcome);
          }
        }
      }
      const left = (roundsLeft.get(round) ?? 1) - 1;
      roundsLeft.set(round, left);
      if (left === 0) options.onRound?.(round + 1);
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, () => worker()));

  return targets.map((target) => {
    const error = errors.get(target.id);
    const outcome = outcomes.get(target.id);
    return {
      id: target.id,
      samplesMs: samples.get(target.id) ?? [],
      ...(target.event === undefined
        ? {}
        : {
            firstRequestMs: firsts.get(target.id) ?? [],
            secondRequestMs: seconds.get(target.id) ?? [],
          }),
      ...(outcome === undefined ? {} : { outcome }),
      ...(error === undefined ? {} : { error }),
    };
  });
}
