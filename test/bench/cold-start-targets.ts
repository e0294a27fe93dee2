/**
 * Issue 8's targets for each function's bundle and init time. A verdict is a
 * value, not a failure: the bench reports it and never fails on it.
 */

/** Bytes in the KB and MB (the stricter decimal reading). */
const KB = 1_000;
const MB = 1_000_000;

/** The HTTP families that only read and write the table (and queue, seal or sign a little). */
export const CRUD_FAMILIES = [
  'agents',
  'data-sources',
  'interactions',
  'analytics',
  'webhooks',
  'users',
  'organizations',
  'auth',
  'kb',
  'model-keys',
  // Issue 11 item 5: starts and reads evaluations; the runs happen in the eval worker.
  'evals',
] as const;

/**
 * P209: families that only read and write the table too, but also speak
 * OIDC or OAuth to an outside provider at a user's request, through the
 * outbound policy (D35, ipaddr.js) and with JWKS verification: single
 * sign-on, and connectors' provider sign-in. Their init is held to the CRUD
 * ratio; their `index.js` gets 50 KB more.
 */
export const PROVIDER_SIGN_IN_FAMILIES = ['sso', 'connections'] as const;

/** The HTTP families that retrieve and answer: they carry the search and model code. */
export const RETRIEVAL_FAMILIES = ['query', 'search', 'mcp', 'openai'] as const;

/** Issue 33: the retrieval families held to an init ratio too. */
export const QUERY_AND_SEARCH = ['query', 'search'] as const;

/** Issue 33: the workers that parse documents, their parsers loaded at the first document that needs them. */
export const PARSING_WORKERS = ['ingestion-worker', 'sync-worker'] as const;

export interface ColdStartTarget {
  /** How the table names the target. */
  readonly label: string;
  readonly maxMinifiedBytes?: number;
  /** Largest median init time, as a multiple of the DynamoDB-only reference's median. */
  readonly maxInitRatioToDynamoDb?: number;
}

export interface ColdStartFigures {
  readonly minifiedBytes: number;
  /** Median init over the DynamoDB-only reference's median; NaN when either is missing. */
  readonly initRatioToDynamoDb: number;
}

export type Verdict =
  | { readonly kind: 'meets' }
  | { readonly kind: 'misses'; readonly reasons: readonly string[] }
  | { readonly kind: 'report-only' };

export function coldStartTarget(functionName: string): ColdStartTarget {
  if ((CRUD_FAMILIES as readonly string[]).includes(functionName)) {
    return {
      label: '≤ 300 KB, init ≤ 2× DynamoDB only',
      maxMinifiedBytes: 300 * KB,
      maxInitRatioToDynamoDb: 2,
    };
  }
  if ((PROVIDER_SIGN_IN_FAMILIES as readonly string[]).includes(functionName)) {
    return {
      label: '≤ 350 KB, init ≤ 2× DynamoDB only',
      maxMinifiedBytes: 350 * KB,
      maxInitRatioToDynamoDb: 2,
    };
  }
  if ((QUERY_AND_SEARCH as readonly string[]).includes(functionName)) {
    return {
      label: '≤ 1 MB, init ≤ 2× DynamoDB only',
      maxMinifiedBytes: 1 * MB,
      maxInitRatioToDynamoDb: 2,
    };
  }
  if ((RETRIEVAL_FAMILIES as readonly string[]).includes(functionName)) {
    return { label: '≤ 1 MB', maxMinifiedBytes: 1 * MB };
  }
  if ((PARSING_WORKERS as readonly string[]).includes(functionName)) {
    return { label: 'init ≤ 2.5× DynamoDB only', maxInitRatioToDynamoDb: 2.5 };
  }
  // Workers and the fallback: "as small as their job allows", reported only.
  return { label: 'as small as its job allows' };
}

export function judge(target: ColdStartTarget, figures: ColdStartFigures): Verdict {
  if (target.maxMinifiedBytes === undefined && target.maxInitRatioToDynamoDb === undefined) {
    return { kind: 'report-only' };
  }
  const reasons: string[] = [];
  if (target.maxMinifiedBytes !== undefined && figures.minifiedBytes > target.maxMinifiedBytes) {
    reasons.push('size');
  }
  if (
    target.maxInitRatioToDynamoDb !== undefined &&
    !(figures.initRatioToDynamoDb <= target.maxInitRatioToDynamoDb)
  ) {
    reasons.push(Number.isNaN(figures.initRatioToDynamoDb) ? 'init not measured' : 'init');
  }
  return reasons.length === 0 ? { kind: 'meets' } : { kind: 'misses', reasons };
}
