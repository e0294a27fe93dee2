/**
 * The local runtime's request overhead for an authenticated, rate-limited
 * `GET /api/v1/agents/:id`, over HTTP and in-process. Imports the runtime,
 * so `run.ts` loads it only after setting the environment.
 */
import type { Route } from '../../layers/core/http/route';
import { ROUTES } from '../../layers/core/http/routes/route-table';
import type { Dependencies } from '../../layers/core/ports/dependencies.port';
import { createAgent } from '../../layers/core/use-cases/agents/agent-use-cases';
import { createApiKey } from '../../layers/core/use-cases/api-keys/api-key-use-cases';
import { createDataSource } from '../../layers/core/use-cases/data-sources/data-source-use-cases';
import { createOrganization } from '../../layers/core/use-cases/organizations/organization-use-cases';
import { lambdaContext, toApiGatewayEvent } from '../../lib/local/apigw-event';
import { LOCAL_FUNCTIONS } from '../../lib/local/functions';
import { startTestService } from '../support/local-service';
import { runHttpLoad } from './http-load';
import {
  type Credential,
  driveLoad,
  keysNeeded,
  type LoadPlan,
  type LoadResult,
  type Send,
} from './load-driver';
import { type LatencySummary, summarize } from './stats';

export const MODES = ['in-process', 'http'] as const;
export type Mode = (typeof MODES)[number];

export interface OverheadOptions {
  readonly concurrencyLevels: readonly number[];
  readonly plan: Omit<LoadPlan, 'concurrency'>;
  /** Keys per enterprise organization; with `plan.requestsPerKey`, bounds an organization's requests. */
  readonly keysPerOrganization: number;
  readonly onProgress: (line: string) => void;
}

export interface LevelResult {
  readonly mode: Mode;
  readonly concurrency: number;
  readonly latency: LatencySummary;
  readonly requestsPerSecond: number;
  readonly elapsedMs: number;
  readonly warmupCompleted: number;
  readonly statuses: Record<string, number>;
  readonly malformed: number;
  /** TCP connections opened (HTTP only). */
  readonly connections: number | null;
  /** DynamoDB calls the service made per request, warm-up included. */
  readonly dynamoDbCallsPerRequest: number;
}

export interface OverheadResult {
  readonly levels: readonly LevelResult[];
  readonly organizations: number;
  readonly keys: number;
  readonly setupMs: number;
}

const TARGET_PATH = '/api/v1/agents/{id}';

/**
 * Starts the real local runtime in memory on free ports, creates the
 * organizations, agents and keys the run needs, then measures each
 * concurrency level in-process and over HTTP. Throws on the first 5xx.
 */
export async function measureRequestOverhead(options: OverheadOptions): Promise<OverheadResult> {
  const route = ROUTES.find(
    (candidate) => candidate.method === 'GET' && candidate.path === TARGET_PATH,
  );
  if (!route)
    throw new Error(`No route GET ${TARGET_PATH} in layers/core/http/routes/route-table.ts`);
  const service = await startTestService();
  try {
    const setupStarted = performance.now();
    const plans = options.concurrencyLevels.map((concurrency) => ({
      ...options.plan,
      concurrency,
    }));
    const perMode = plans.reduce((sum, plan) => sum + keysNeeded(plan), 0);
    const credentials = await createCredentials(
      service.runtime.dependencies,
      perMode * MODES.length,
      options.keysPerOrganization,
    );
    const setupMs = performance.now() - setupStarted;
    options.onProgress(
      `setup: ${credentials.length} Read keys in ${Math.ceil(credentials.length / options.keysPerOrganization)} enterprise organizations (${Math.round(setupMs)} ms)`,
    );

    // Every call the service makes to dynalite: shows each request takes the
    // limiter's one-update path (a retry or a plan read would show as more).
    let dynamoDbCalls = 0;
    service.runtime.client.middlewareStack.add(
      (next) => (args) => {
        dynamoDbCalls += 1;
        return next(args);
      },
      { step: 'initialize', name: 'benchDynamoDbCallCounter' },
    );

    const inProcess = inProcessSend(route);
    const levels: LevelResult[] = [];
    let next = 0;
    for (const plan of plans) {
      for (const mode of MODES) {
        const keys = credentials.slice(next, next + keysNeeded(plan));
        next += keys.length;
        const callsBefore = dynamoDbCalls;
        const result =
          mode === 'http'
            ? await runHttpLoad({ url: service.url, plan, credentials: keys })
            : { ...(await driveLoad(plan, keys, inProcess)), connections: null };
        const requests = result.warmupCompleted + result.latenciesMs.length;
        const level = levelResult(mode, plan.concurrency, result, {
          connections: result.connections,
          dynamoDbCallsPerRequest: requests > 0 ? (dynamoDbCalls - callsBefore) / requests : 0,
        });
        options.onProgress(describeLevel(level));
        if (result.failure) {
          throw new Error(
            `Aborted at ${mode} concurrency ${plan.concurrency}: ${result.failure} (statuses ${JSON.stringify(result.statuses)})`,
          );
        }
        levels.push(level);
      }
    }
    return {
      levels,
      organizations: Math.ceil(credentials.length / options.keysPerOrganization),
      keys: credentials.length,
      setupMs,
    };
  } finally {
    await service.end();
  }
}

/**
 * `count` Read-only keys, `keysPerOrganization` to each new enterprise
 * organization, each organization with one data source and one agent using
 * it. The keys are made with the same use case as the admin API's.
 */
async function createCredentials(
  deps: Dependencies,
  count: number,
  keysPerOrganization: number,
): Promise<Credential[]> {
  const credentials: Credential[] = [];
  for (let index = 0; credentials.length < count; index += 1) {
    const organization = await createOrganization(deps, {
      name: `Bench organization ${index + 1}`,
      plan: 'enterprise',
    });
    const source = await createDataSource(deps, organization.id, {
      type: 'website',
      name: 'Bench docs',
      config: { url: 'https://docs.example.com/' },
    });
    const agent = await createAgent(deps, organization.id, {
      name: 'Bench agent',
      data_source_ids: [source.id],
      system_prompt: 'Answer from the documentation only.',
    });
    const keys = Math.min(keysPerOrganization, count - credentials.length);
    for (let key = 0; key < keys; key += 1) {
      const created = await createApiKey(deps, {
        orgId: organization.id,
        name: `Bench read key ${key + 1}`,
        scopes: ['Read'],
        environment: deps.environment,
      });
      credentials.push({ key: created.key, agentId: agent.id });
    }
  }
  return credentials;
}

/**
 * The request without the socket: the event the local gateway would build
 * (same builder, same headers a keep-alive client sends) passed to the same
 * handler export the gateway calls.
 */
function inProcessSend(route: Route): Send {
  const handler = LOCAL_FUNCTIONS[route.family];
  if (!handler) throw new Error(`No local function for family ${route.family}`);
  const noBody = Buffer.alloc(0);
  return async (credential) => {
    const event = toApiGatewayEvent(
      {
        method: 'GET',
        url: `/api/v1/agents/${encodeURIComponent(credential.agentId)}`,
        headers: {
          host: '127.0.0.1',
          connection: 'keep-alive',
          accept: 'application/json',
          authorization: `Bearer ${credential.key}`,
        },
        body: noBody,
        sourceIp: '127.0.0.1',
      },
      route,
      { id: credential.agentId },
    );
    const result = await handler(event, lambdaContext(route.family));
    return {
      status: result.statusCode,
      rateLimited: result.headers?.['X-RateLimit-Remaining'] !== undefined,
      bodyMatches: result.body.includes(credential.agentId),
    };
  };
}

function levelResult(
  mode: Mode,
  concurrency: number,
  result: LoadResult,
  counts: Pick<LevelResult, 'connections' | 'dynamoDbCallsPerRequest'>,
): LevelResult {
  const latency = summarize(result.latenciesMs);
  return {
    mode,
    concurrency,
    latency,
    requestsPerSecond: result.elapsedMs > 0 ? (latency.count / result.elapsedMs) * 1000 : 0,
    elapsedMs: result.elapsedMs,
    warmupCompleted: result.warmupCompleted,
    statuses: result.statuses,
    malformed: result.malformed,
    ...counts,
  };
}

export function nonOkCount(level: Pick<LevelResult, 'statuses' | 'malformed'>): number {
  const non200 = Object.entries(level.statuses)
    .filter(([status]) => status !== '200')
    .reduce((sum, [, count]) => sum + count, 0);
  return non200 + level.malformed;
}

function describeLevel(level: LevelResult): string {
  const { latency } = level;
  return [
    `${level.mode.padEnd(10)} c=${String(level.concurrency).padStart(2)}`,
    `${latency.count} req in ${(level.elapsedMs / 1000).toFixed(1)} s`,
    `p50 ${latency.p50Ms.toFixed(2)} ms`,
    `p99 ${latency.p99Ms.toFixed(2)} ms`,
    `${Math.round(level.requestsPerSecond)} req/s`,
    `statuses ${JSON.stringify(level.statuses)}`,
    `DynamoDB calls/request ${level.dynamoDbCallsPerRequest.toFixed(2)}`,
    level.connections === null ? '' : `connections ${level.connections}`,
  ]
    .join('  ')
    .trimEnd();
}
