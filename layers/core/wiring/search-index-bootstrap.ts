import * as z from 'zod/mini';
import { createOpenSearchClient } from '../adapters/opensearch/client';
import { type EnsuredIndex, ensureIndexes } from '../adapters/opensearch/ensure-index';
import { DEFAULT_INDEX_PREFIX, MAX_DIMENSIONS } from '../adapters/opensearch/index-definition';
import '../zod-english';

/** A bootstrap request may wait for a domain that is still warming up. */
const BOOTSTRAP_TIMEOUT_MS = 10_000;

const embeddersSchema = z.pipe(
  z.pipe(
    z.string(),
    z.transform((text: string, context) => {
      try {
        const value: unknown = JSON.parse(text);
        return value;
      } catch {
        context.issues.push({ code: 'custom', message: 'must be JSON', input: text });
        return z.NEVER;
      }
    }),
  ),
  z
    .array(
      z.strictObject({
        id: z.string().check(z.minLength(1)),
        dimensions: z.number().check(z.int(), z.minimum(1), z.maximum(MAX_DIMENSIONS)),
      }),
    )
    .check(z.minLength(1)),
);

/**
 * What the bootstrap reads from its environment (STYLE.md §5: parsed once,
 * failing with the names of what is wrong).
 */
const bootstrapConfigSchema = z
  .object({
    /** A cluster reached without signing (one machine, tests). Wins over the endpoint. */
    OPENSEARCH_URL: z.optional(z.url()),
    /** The domain endpoint (`SearchDomain.domainEndpoint`), SigV4-signed. */
    OPENSEARCH_ENDPOINT: z.optional(z.string().check(z.minLength(1))),
    AWS_REGION: z.optional(z.string().check(z.minLength(1))),
    SEARCH_INDEX_PREFIX: z._default(
      z.string().check(z.regex(/^[a-z0-9][a-z0-9-]{0,99}$/)),
      DEFAULT_INDEX_PREFIX,
    ),
    /** JSON: `[{ "id": "offline-hash-v1/384", "dimensions": 384 }, …]`, one index each. */
    SEARCH_EMBEDDERS: embeddersSchema,
  })
  .check(
    z.refine(
      (config) =>
        Boolean(config.OPENSEARCH_URL || (config.OPENSEARCH_ENDPOINT && config.AWS_REGION)),
      {
        message: 'set OPENSEARCH_URL, or OPENSEARCH_ENDPOINT and AWS_REGION',
        path: ['OPENSEARCH_ENDPOINT'],
      },
    ),
  );

export interface SearchIndexBootstrap {
  readonly indexPrefix: string;
  /** Creates, checks or extends the chunk index of every configured embedder. */
  ensureIndexes(): Promise<EnsuredIndex[]>;
}

/**
 * What the index bootstrap custom resource needs, built from its
 * environment: an OpenSearch client (SigV4 for the domain in the cloud) and
 * the embedders whose indexes must exist. Nothing is contacted until
 * `ensureIndexes` runs.
 */
export function searchIndexBootstrap(env: NodeJS.ProcessEnv = process.env): SearchIndexBootstrap {
  const parsed = bootstrapConfigSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join('.')}: ${issue.message}`,
    );
    throw new Error(`Invalid search index bootstrap configuration: ${problems.join('; ')}`);
  }
  const config = parsed.data;
  const client = createOpenSearchClient({
    url: config.OPENSEARCH_URL,
    endpoint: config.OPENSEARCH_ENDPOINT,
    region: config.AWS_REGION,
    timeoutMs: BOOTSTRAP_TIMEOUT_MS,
  });
  return {
    indexPrefix: config.SEARCH_INDEX_PREFIX,
    ensureIndexes: () =>
      ensureIndexes(client, {
        prefix: config.SEARCH_INDEX_PREFIX,
        embedders: config.SEARCH_EMBEDDERS,
      }),
  };
}
