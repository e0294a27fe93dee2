/**
 * A closed-loop load driver shared by both ways the bench sends requests
 * (over HTTP from a worker thread, and in-process to the handler export):
 * `concurrency` virtual users, each sending its next request as soon as the
 * previous one is answered. It knows nothing of the service; `send` does.
 */

/** One Read key and the agent of its organization that it reads. */
export interface Credential {
  readonly key: string;
  readonly agentId: string;
}

export interface LoadPlan {
  readonly concurrency: number;
  /** Requests sent before measuring (JIT, sockets, caches), bounded by count and time. */
  readonly warmupRequests: number;
  readonly warmupMaxMs: number;
  /** The measured phase, bounded by count and time, whichever comes first. */
  readonly requests: number;
  readonly maxMs: number;
  /** A virtual user moves to a fresh key after this many requests (see `keysNeeded`). */
  readonly requestsPerKey: number;
}

export interface Outcome {
  readonly status: number;
  /** The response carries `X-RateLimit-Remaining`: the rate limiter ran. */
  readonly rateLimited: boolean;
  /** The body names the agent asked for. */
  readonly bodyMatches: boolean;
}

export type Send = (credential: Credential) => Promise<Outcome>;

export interface LoadResult {
  /** Latency of every request of the measured phase, in order of completion. */
  readonly latenciesMs: number[];
  readonly elapsedMs: number;
  readonly warmupCompleted: number;
  /** Status → count over warm-up and measured phase; `0` is a request that threw. */
  readonly statuses: Record<string, number>;
  /** 200s without rate-limit headers or with another agent's body. */
  readonly malformed: number;
  /** Why the run stopped early (a 5xx or a thrown error), or null. */
  readonly failure: string | null;
}

/**
 * Keys a plan may consume: every full key plus one partly used key per
 * virtual user. Sized so no request is refused by its scope bucket.
 */
export function keysNeeded(plan: LoadPlan): number {
  const total = plan.warmupRequests + plan.requests;
  return Math.ceil(total / plan.requestsPerKey) + plan.concurrency;
}

/** Hands out each key once; a virtual user uses its key `perKey` times, then takes the next. */
class KeyDispenser {
  private next = 0;

  constructor(
    private readonly credentials: readonly Credential[],
    readonly perKey: number,
  ) {}

  take(): Credential {
    const credential = this.credentials[this.next];
    if (!credential) {
      throw new Error(`The bench ran out of API keys after ${this.credentials.length}`);
    }
    this.next += 1;
    return credential;
  }
}

class VirtualUser {
  private current: Credential | null = null;
  private used = 0;

  constructor(private readonly keys: KeyDispenser) {}

  credential(): Credential {
    if (!this.current || this.used >= this.keys.perKey) {
      this.current = this.keys.take();
      this.used = 0;
    }
    this.used += 1;
    return this.current;
  }
}

export async function driveLoad(
  plan: LoadPlan,
  credentials: readonly Credential[],
  send: Send,
): Promise<LoadResult> {
  const keys = new KeyDispenser(credentials, plan.requestsPerKey);
  const users = Array.from({ length: plan.concurrency }, () => new VirtualUser(keys));
  const statuses: Record<string, number> = {};
  let malformed = 0;
  let failure: string | null = null;

  const runPhase = async (count: number, maxMs: number, latencies: number[] | null) => {
    const started = performance.now();
    const deadline = started + maxMs;
    let issued = 0;
    let completed = 0;
    const loop = async (user: VirtualUser) => {
      while (failure === null && issued < count && performance.now() < deadline) {
        issued += 1;
        const credential = user.credential();
        const sent = performance.now();
        let outcome: Outcome;
        try {
          outcome = await send(credential);
        } catch (error) {
          statuses[0] = (statuses[0] ?? 0) + 1;
          failure ??= `request failed: ${error instanceof Error ? error.message : String(error)}`;
          return;
        }
        const latency = performance.now() - sent;
        completed += 1;
        latencies?.push(latency);
        statuses[outcome.status] = (statuses[outcome.status] ?? 0) + 1;
        if (outcome.status >= 500) failure ??= `HTTP ${outcome.status}`;
        if (outcome.status === 200 && !(outcome.rateLimited && outcome.bodyMatches)) {
          malformed += 1;
        }
      }
    };
    await Promise.all(users.map(loop));
    return { completed, elapsedMs: performance.now() - started };
  };

  const warmup = await runPhase(plan.warmupRequests, plan.warmupMaxMs, null);
  const latenciesMs: number[] = [];
  const measured =
    failure === null ? await runPhase(plan.requests, plan.maxMs, latenciesMs) : { elapsedMs: 0 };
  return {
    latenciesMs,
    elapsedMs: measured.elapsedMs,
    warmupCompleted: warmup.completed,
    statuses,
    malformed,
    failure,
  };
}
