/**
 * Retrieval quality through the public HTTP API (issue 10 item 7, P191): a
 * collection crawled from a loopback site (test/eval/http-collection.ts),
 * then every query sent to `POST /api/v1/semantic-search` once per variant —
 * without `rag_strategy` (the endpoint's default) and with each D20 strategy
 * named — asking for the 100 best chunks. Agents rank with the same
 * `rankByStrategy` (P172); their `/api/v1/query` lists only the sources an
 * answer cites (P174), which is not a ranking, so the ranking is read here.
 *
 * A run is document-level as trec_eval reads one: a document takes the rank
 * of its first chunk in the response (the endpoint's order, which is MMR's
 * pick order too), so scores are `100 − rank`. A query's own document is
 * dropped when the collection names one (ArguAna, `withoutQueryDocument`).
 * Queries longer than the endpoint accepts (`INTERACTION_LIMITS.queryMax`)
 * are cut at the last space before the limit, as a user would have to.
 */
import { RAG_STRATEGIES, type RagStrategy } from '../../layers/core/domain/agent';
import { INTERACTION_LIMITS } from '../../layers/core/domain/interaction';
import { startTestService } from '../support/local-service';
import { type Collection, withoutQueryDocument } from './collection';
import { type CrawledCollection, call, crawlCollection, executeKeys } from './http-collection';

/** `default`: no `rag_strategy` in the body, so the endpoint's default ranks. */
export type SearchVariant = 'default' | RagStrategy;
export const SEARCH_VARIANTS: readonly SearchVariant[] = ['default', ...RAG_STRATEGIES];

/** As many chunks as the endpoint returns (its `top_k` maximum). */
export const SEARCH_DEPTH = 100;

export interface HttpRetrievalResult {
  /** variant → query id → document id → score. */
  readonly runs: ReadonlyMap<SearchVariant, ReadonlyMap<string, ReadonlyMap<string, number>>>;
  /** What the endpoint said ranked each variant (`metadata.rag_strategy`). */
  readonly rankedBy: ReadonlyMap<SearchVariant, string>;
  readonly chunksIndexed: number;
  readonly syncSeconds: number;
  readonly querySeconds: number;
  /** Queries cut to the endpoint's limit. */
  readonly queriesCut: number;
}

/** The query as the endpoint accepts it: at most `queryMax` characters, cut at a space. */
export function fitQuery(text: string, limit: number = INTERACTION_LIMITS.queryMax): string {
  const trimmed = text.trim();
  if (trimmed.length <= limit) return trimmed;
  const space = trimmed.lastIndexOf(' ', limit);
  return trimmed.slice(0, space > 0 ? space : limit).trim();
}

/** A document-level run from the chunks of one response, in the response's order. */
export function runFromChunks(
  chunks: readonly { readonly document_url: string | null }[],
  documentAt: (url: string) => string | undefined,
): Map<string, number> {
  const run = new Map<string, number>();
  chunks.forEach((chunk, rank) => {
    const id = chunk.document_url === null ? undefined : documentAt(chunk.document_url);
    if (id !== undefined && !run.has(id)) run.set(id, SEARCH_DEPTH - rank);
  });
  return run;
}

/**
 * Crawls `collection` and searches each of `queryIds` with every variant.
 * Everything goes through HTTP; nothing is read from the runtime's insides.
 */
export async function measureRetrievalOverHttp(
  collection: Collection,
  queryIds: readonly string[],
  log: (line: string) => void = () => {},
  variants: readonly SearchVariant[] = SEARCH_VARIANTS,
): Promise<HttpRetrievalResult> {
  const service = await startTestService({ env: { SVC_ALLOW_PRIVATE_URLS: 'true' } });
  let crawled: CrawledCollection | undefined;
  try {
    crawled = await crawlCollection(
      service,
      collection.documents.map(({ id, title, text }) => ({ id, title, paragraphs: [text] })),
      'retrieval eval',
      log,
    );
    const { byUrl, tenant } = crawled;
    const wanted = new Set(queryIds);
    const queries = collection.queries.filter((query) => wanted.has(query.id));
    const keys = await executeKeys(service, tenant, queries.length * variants.length);
    const runs = new Map<SearchVariant, Map<string, Map<string, number>>>(
      variants.map((variant) => [variant, new Map()]),
    );
    const rankedBy = new Map<SearchVariant, string>();
    let queriesCut = 0;
    let request = 0;
    const started = performance.now();
    for (const [index, query] of queries.entries()) {
      const text = fitQuery(query.text);
      if (text.length < query.text.trim().length) queriesCut += 1;
      for (const variant of variants) {
        const result = await call(
          service,
          keys[request++ % keys.length] ?? tenant.key,
          '/api/v1/semantic-search',
          'POST',
          {
            query: text,
            org_id: tenant.orgId,
            top_k: SEARCH_DEPTH,
            ...(variant === 'default' ? {} : { rag_strategy: variant }),
          },
        );
        rankedBy.set(variant, result.metadata.rag_strategy);
        const run = runFromChunks(result.chunks, (url) => byUrl.get(url)?.id);
        runs.get(variant)?.set(query.id, withoutQueryDocument(collection, query.id, run));
      }
      if ((index + 1) % 250 === 0) {
        log(`${index + 1} of ${queries.length} queries searched`);
      }
    }
    const querySeconds = (performance.now() - started) / 1000;
    log(
      `${queries.length} queries × ${variants.length} variants searched in ${querySeconds.toFixed(1)} s`,
    );
    return {
      runs,
      rankedBy,
      chunksIndexed: crawled.chunksIndexed,
      syncSeconds: crawled.syncSeconds,
      querySeconds,
      queriesCut,
    };
  } finally {
    await crawled?.site.close();
    await service.end();
  }
}
