/**
 * A bounded mixed load against a running service (issue 13 item 5), shared by
 * the `mixed-load` section of `npm run bench` and its small version in the
 * test suite: several organizations on different plans, each with a few
 * Admin keys, sending reads, writes, queries, semantic searches and uploads
 * (presigned POST, then the file itself) through a pool of `concurrency`
 * workers over real sockets.
 *
 * What must hold (P106): no 5xx, no 4xx but 429, and per organization exactly
 * as many 429s as the limits allow for the requests sent (D16, D31). Each
 * admitted request takes one token of its key's scope bucket and one count of
 * the organization's minute and day; a refused one gives back what it took
 * (P59). So, whatever the order of arrival, an organization admits
 *
 *     min( Σ over its keys and scopes of min(sent, bucket), plan cap )
 *
 * requests: while the plan has room, only empty buckets refuse; once it is
 * full, nothing more passes. A `concurrency` refusal (D31: 2, 10, 50 at once)
 * is retried after a jittered pause, as a client following `Retry-After`
 * would, and counted apart: it charges nothing, so the arithmetic above holds.
 * With a frozen clock (the test) nothing refills and the count is exact; on a
 * real clock (the bench) buckets refill during the run and an organization's
 * requests may cross a minute, so the count must lie between the frozen
 * figure and the figure with every refill and every minute crossed counted:
 * exact again for an organization whose buckets cannot refill past what it
 * was sent and whose requests all fell within one minute.
 */
import type { Plan } from '../../layers/core/domain/plans';
import { PLAN_LIMITS } from '../../layers/core/domain/plans';
import { SCOPE_RATE_LIMITS, type Scope } from '../../layers/core/domain/scopes';
import { type ApiResponse, api, json } from './http-client';
import { sendUpload, type UploadTicket } from './uploads';

export const LOAD_KINDS = ['read', 'write', 'query', 'search', 'upload', 'upload-body'] as const;
export type LoadKind = (typeof LOAD_KINDS)[number];

/** The scope each kind of API request draws from (D9, D16); the upload body is S3's, not the API's. */
const SCOPE_OF: Record<Exclude<LoadKind, 'upload-body'>, Scope> = {
  read: 'Read',
  write: 'Write',
  query: 'Execute',
  search: 'Execute',
  upload: 'Write',
};

export interface LoadOrganization {
  readonly name: string;
  readonly plan: Plan;
  readonly orgId: string;
  /** Admin keys of the organization (an Admin key draws from the bucket of each route's scope, D16). */
  readonly keys: readonly string[];
  /** API requests to send in the run (upload bodies not counted). */
  readonly requests: number;
  /** Requests of one key beyond its Write burst: shows `scope_rate` refusals (0: every key stays within its buckets). */
  readonly overdrawWrites?: number;
}

/** Weights of the kinds of API request in the run. */
export const DEFAULT_MIX: Readonly<Record<Exclude<LoadKind, 'upload-body'>, number>> = {
  read: 40,
  write: 10,
  query: 15,
  search: 20,
  upload: 15,
};

interface Prepared extends LoadOrganization {
  readonly agentId: string;
  readonly fileSourceId: string;
  /** Requests the preparation sent, per key index and scope, and in all (they count against the same limits). */
  readonly setup: Map<string, number>;
  readonly setupRequests: number;
  /** When the setup began (its requests count in the limits from then). */
  readonly preparedAt: number;
}

interface Planned {
  readonly org: number;
  readonly key: number;
  readonly kind: Exclude<LoadKind, 'upload-body'>;
  readonly n: number;
}

export interface Outcome {
  readonly org: string;
  readonly kind: LoadKind;
  readonly status: number;
  readonly reason: string | undefined;
  readonly ms: number;
  /** Epoch ms the request was sent and its response ended: the minutes its plan count may fall in. */
  readonly sentAt: number;
  readonly endedAt: number;
}

export interface MixedLoadResult {
  readonly outcomes: readonly Outcome[];
  /** Concurrency refusals retried, per organization name. */
  readonly concurrencyRetries: ReadonlyMap<string, number>;
  readonly startedAt: number;
  readonly endedAt: number;
  /** Per organization name: requests sent per key and scope (setup included). */
  readonly sentPerBucket: ReadonlyMap<string, ReadonlyMap<string, number>>;
  readonly organizations: readonly Prepared[];
}

const bucketKey = (key: number, scope: Scope) => `${key}#${scope}`;

/** What each organization needs before the load: an agent to query, a file data source to upload to. */
export async function prepareOrganizations(
  url: string,
  organizations: readonly LoadOrganization[],
): Promise<Prepared[]> {
  const preparedAt = Date.now();
  return Promise.all(
    organizations.map(async (org) => {
      const key = org.keys[0] ?? '';
      const agent = await expectCreated(
        await api(url, '/api/v1/agents', {
          method: 'POST',
          key,
          body: { name: `${org.name} agent`, data_source_ids: [] },
        }),
      );
      const source = await expectCreated(
        await api(url, '/api/v1/data-sources', {
          method: 'POST',
          key,
          body: { type: 'file', name: `${org.name} files`, sync_frequency: 'manual' },
        }),
      );
      return {
        ...org,
        agentId: agent.id,
        fileSourceId: source.id,
        setup: new Map([[bucketKey(0, 'Write'), 2]]),
        setupRequests: 2,
        preparedAt,
      };
    }),
  );
}

async function expectCreated(response: ApiResponse): Promise<Record<string, any>> {
  if (response.status !== 201) throw new Error(`setup: ${response.status} ${response.text}`);
  return json(response);
}

/** The requests of the run, kinds by the mix, keys round-robin per scope, shuffled (seeded) across organizations. */
function planRequests(
  organizations: readonly Prepared[],
  mix: Readonly<Record<Exclude<LoadKind, 'upload-body'>, number>>,
  seed: number,
): Planned[] {
  const kinds = Object.keys(mix) as Exclude<LoadKind, 'upload-body'>[];
  const total = kinds.reduce((sum, kind) => sum + mix[kind], 0);
  const planned: Planned[] = [];
  let n = 0;
  organizations.forEach((org, index) => {
    const perScope = new Map<Scope, number>();
    let sent = 0;
    for (const kind of kinds) {
      const count =
        kind === kinds[kinds.length - 1]
          ? org.requests - sent
          : Math.round((org.requests * mix[kind]) / total);
      sent += count;
      for (let i = 0; i < count; i += 1) {
        const scope = SCOPE_OF[kind];
        const turn = perScope.get(scope) ?? 0;
        perScope.set(scope, turn + 1);
        planned.push({ org: index, key: turn % org.keys.length, kind, n: n++ });
      }
    }
    for (let i = 0; i < (org.overdrawWrites ?? 0); i += 1) {
      planned.push({ org: index, key: 0, kind: 'write', n: n++ });
    }
  });
  // Mulberry32: the same interleaving for the same seed.
  let state = seed >>> 0;
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  for (let i = planned.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [planned[i], planned[j]] = [planned[j] as Planned, planned[i] as Planned];
  }
  // Organizations with a plan cap within reach go first, each request beside one of the others: on a
  // real clock their run then most likely stays within one minute of the plan, where the count is exact.
  const capped = planned.filter((request) => organizations[request.org]?.plan !== 'enterprise');
  const others = planned.filter((request) => organizations[request.org]?.plan === 'enterprise');
  const ordered: Planned[] = [];
  for (let i = 0; i < Math.max(capped.length, others.length); i += 1) {
    if (i < capped.length) ordered.push(capped[i] as Planned);
    if (i < others.length) ordered.push(others[i] as Planned);
  }
  return ordered;
}

const QUESTIONS = ['How do returns work?', 'What does shipping cost?', 'Is there a warranty?'];

/** Sends one planned request (and for an upload, its file); returns its outcomes. */
async function send(url: string, org: Prepared, request: Planned): Promise<Outcome[]> {
  const key = org.keys[request.key] ?? '';
  const call = (): Promise<ApiResponse> => {
    switch (request.kind) {
      case 'read':
        return api(url, request.n % 2 === 0 ? '/api/v1/agents' : `/api/v1/agents/${org.agentId}`, {
          key,
        });
      case 'write':
        return api(url, '/api/v1/agents', {
          method: 'POST',
          key,
          body: { name: `load ${request.n}`, data_source_ids: [] },
        });
      case 'query':
        return api(url, '/api/v1/query', {
          method: 'POST',
          key,
          body: { agent_id: org.agentId, query: QUESTIONS[request.n % QUESTIONS.length] },
        });
      case 'search':
        return api(url, '/api/v1/semantic-search', {
          method: 'POST',
          key,
          body: { query: QUESTIONS[request.n % QUESTIONS.length], org_id: org.orgId, top_k: 5 },
        });
      case 'upload':
        return api(url, `/api/v1/data-sources/${org.fileSourceId}/files`, {
          method: 'POST',
          key,
          body: { filename: `load-${request.n}.txt`, size_bytes: UPLOAD_BYTES.length },
        });
    }
  };
  const sentAt = Date.now();
  const started = performance.now();
  const response = await call();
  const outcome: Outcome = {
    org: org.name,
    kind: request.kind,
    status: response.status,
    reason: response.status === 429 ? json(response).error?.details?.reason : undefined,
    ms: performance.now() - started,
    sentAt,
    endedAt: Date.now(),
  };
  if (request.kind !== 'upload' || response.status !== 201) return [outcome];
  const bodySentAt = Date.now();
  const bodyStarted = performance.now();
  const sent = await sendUpload(json(response) as UploadTicket, UPLOAD_BYTES, {
    filename: `load-${request.n}.txt`,
  });
  return [
    outcome,
    {
      org: org.name,
      kind: 'upload-body',
      status: sent.status,
      reason: undefined,
      ms: performance.now() - bodyStarted,
      sentAt: bodySentAt,
      endedAt: Date.now(),
    },
  ];
}

const UPLOAD_BYTES = Buffer.from(
  'Returns are accepted within 30 days. Shipping takes five business days.\n'.repeat(20),
);

/** Runs the load: `concurrency` workers take the planned requests in turn until none is left. */
export async function runMixedLoad(options: {
  readonly url: string;
  readonly organizations: readonly Prepared[];
  readonly concurrency: number;
  readonly mix?: Readonly<Record<Exclude<LoadKind, 'upload-body'>, number>>;
  readonly seed?: number;
}): Promise<MixedLoadResult> {
  const { url, organizations, concurrency } = options;
  const planned = planRequests(organizations, options.mix ?? DEFAULT_MIX, options.seed ?? 13);
  const sentPerBucket = new Map<string, Map<string, number>>();
  for (const org of organizations) sentPerBucket.set(org.name, new Map(org.setup));
  for (const request of planned) {
    const org = organizations[request.org] as Prepared;
    const buckets = sentPerBucket.get(org.name) as Map<string, number>;
    const bucket = bucketKey(request.key, SCOPE_OF[request.kind]);
    buckets.set(bucket, (buckets.get(bucket) ?? 0) + 1);
  }
  const outcomes: Outcome[] = [];
  const concurrencyRetries = new Map<string, number>();
  let next = 0;
  const startedAt = Date.now();
  const worker = async () => {
    for (let index = next++; index < planned.length; index = next++) {
      const request = planned[index] as Planned;
      const org = organizations[request.org] as Prepared;
      for (let attempt = 0; ; attempt += 1) {
        const results = await send(url, org, request);
        if (results[0]?.reason !== 'concurrency') {
          outcomes.push(...results);
          break;
        }
        concurrencyRetries.set(org.name, (concurrencyRetries.get(org.name) ?? 0) + 1);
        // Full jitter growing to 200 ms (test/support/rate-limits.ts tells why).
        await new Promise((resolve) =>
          setTimeout(resolve, Math.random() * Math.min(200, 10 * 2 ** attempt)),
        );
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return {
    outcomes,
    concurrencyRetries,
    startedAt,
    endedAt: Date.now(),
    sentPerBucket,
    organizations,
  };
}

/** The 429s the limits allow an organization for what it was sent: exact on a frozen clock, a range on a real one. */
export interface ExpectedRefusals {
  readonly org: string;
  readonly plan: Plan;
  readonly sent: number;
  readonly refused: number;
  readonly expectedMin: number;
  readonly expectedMax: number;
}

export function expectedRefusals(
  result: MixedLoadResult,
  clock: 'frozen' | 'real',
): ExpectedRefusals[] {
  return result.organizations.map((org) => {
    // The organization's span, from its setup to its last response (the same machine's clock as the service's).
    const ended = Math.max(
      org.preparedAt,
      ...result.outcomes.filter((outcome) => outcome.org === org.name).map((o) => o.endedAt),
    );
    const minutes = (ended - org.preparedAt) / 60_000;
    const windows =
      clock === 'frozen' ? 1 : Math.floor(ended / 60_000) - Math.floor(org.preparedAt / 60_000) + 1;
    const limits = PLAN_LIMITS[org.plan];
    const buckets = result.sentPerBucket.get(org.name) ?? new Map<string, number>();
    let withinBuckets = 0;
    let withinRefilledBuckets = 0;
    let sent = 0;
    for (const [bucket, count] of buckets) {
      const policy = SCOPE_RATE_LIMITS[bucket.split('#')[1] as Scope];
      sent += count;
      withinBuckets += Math.min(count, policy.burst);
      const refill = clock === 'frozen' ? 0 : Math.ceil(policy.perMinute * minutes);
      withinRefilledBuckets += Math.min(count, policy.burst + refill);
    }
    const day = limits.requestsPerDay ?? Number.POSITIVE_INFINITY;
    const admittedMin = Math.min(withinBuckets, limits.requestsPerMinute, day);
    const admittedMax = Math.min(withinRefilledBuckets, limits.requestsPerMinute * windows, day);
    const refused = result.outcomes.filter(
      (outcome) => outcome.org === org.name && outcome.status === 429,
    ).length;
    // The setup's requests were admitted; the load's are what may be refused.
    return {
      org: org.name,
      plan: org.plan,
      sent: sent - org.setupRequests,
      refused,
      expectedMin: sent - admittedMax,
      expectedMax: sent - admittedMin,
    };
  });
}

/** Counts by class of status, per kind; and latency percentiles per kind. */
export function tally(outcomes: readonly Outcome[]) {
  return LOAD_KINDS.map((kind) => {
    const own = outcomes.filter((outcome) => outcome.kind === kind);
    const sorted = own.map((outcome) => outcome.ms).sort((a, b) => a - b);
    const at = (p: number) =>
      sorted.length === 0
        ? Number.NaN
        : (sorted[Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length))) - 1] ??
          Number.NaN);
    return {
      kind,
      requests: own.length,
      ok: own.filter((outcome) => outcome.status >= 200 && outcome.status < 300).length,
      tooMany: own.filter((outcome) => outcome.status === 429).length,
      otherClientErrors: own.filter(
        (outcome) => outcome.status >= 400 && outcome.status < 500 && outcome.status !== 429,
      ).length,
      serverErrors: own.filter((outcome) => outcome.status >= 500).length,
      p50Ms: at(50),
      p99Ms: at(99),
    };
  });
}

/**
 * The plan's minute, checked minute by minute on a real clock (P106): the
 * service counts a request in the minute its check ran, somewhere between its
 * sending and its response. So in each minute at most the plan's cap of
 * admitted requests can lie wholly inside it, and a `plan_rate` refusal needs
 * a minute it overlaps where at least the cap of admitted requests may have
 * been counted. Returns what broke either rule (the setup's requests count as
 * admitted, anywhere from the setup to the start of the load).
 */
export function planMinuteViolations(result: MixedLoadResult): string[] {
  const minute = (at: number) => Math.floor(at / 60_000);
  const problems: string[] = [];
  for (const org of result.organizations) {
    const cap = PLAN_LIMITS[org.plan].requestsPerMinute;
    const own = result.outcomes.filter(
      (outcome) => outcome.org === org.name && outcome.kind !== 'upload-body',
    );
    const admitted = [
      ...own.filter((outcome) => outcome.status !== 429),
      ...Array.from({ length: org.setupRequests }, () => ({
        sentAt: org.preparedAt,
        endedAt: result.startedAt,
      })),
    ];
    const inside = new Map<number, number>();
    const overlapping = new Map<number, number>();
    for (const request of admitted) {
      const [from, to] = [minute(request.sentAt), minute(request.endedAt)];
      if (from === to) inside.set(from, (inside.get(from) ?? 0) + 1);
      for (let m = from; m <= to; m += 1) overlapping.set(m, (overlapping.get(m) ?? 0) + 1);
    }
    for (const [m, count] of inside) {
      if (count > cap) {
        const at = new Date(m * 60_000).toISOString();
        problems.push(`${org.name}: ${count} admitted within the minute from ${at}, cap ${cap}`);
      }
    }
    for (const refusal of own.filter((outcome) => outcome.reason === 'plan_rate')) {
      let full = false;
      for (let m = minute(refusal.sentAt); m <= minute(refusal.endedAt); m += 1) {
        if ((overlapping.get(m) ?? 0) >= cap) full = true;
      }
      if (!full) problems.push(`${org.name}: plan_rate refusal in a minute with room`);
    }
  }
  return problems;
}
