/**
 * What OpenSearch answers, as the retrieval index reads it: zod schemas of
 * the responses it parses, and the hits turned back into scored chunks.
 */
import * as z from 'zod/mini';
import type { ScoredChunk } from '../../ports/retrieval-index.port';
import { errorFromStatus } from './translate-error';

/** `_source` as written by `upsert`: `IndexedChunk`, field for field. */
export const chunkSourceSchema = z.object({
  chunk_id: z.string(),
  org_id: z.string(),
  data_source_id: z.string(),
  document_id: z.string(),
  document_title: z.string(),
  document_url: z.nullish(z.string()),
  heading_path: z.array(z.string()),
  text: z.string(),
  position: z.number().check(z.int()),
  document_hash: z.string(),
  embedder_id: z.string(),
  embedding: z.optional(z.array(z.number())),
});

export const hitsSchema = z.object({
  hits: z.object({
    hits: z.array(z.object({ _score: z.nullable(z.number()), _source: chunkSourceSchema })),
  }),
});

export const embedderHitsSchema = z.object({
  hits: z.object({
    hits: z.array(z.object({ _source: z.object({ embedder_id: z.string() }) })),
  }),
});

/** An OpenSearch error's `type` and `reason`, either of which may be missing. */
export const errorCauseSchema = z.object({
  type: z.optional(z.string()),
  reason: z.optional(z.string()),
});

/** One answer of a multi-search: a search result, or `{ error, status }`. */
export const multiSearchItemSchema = z.looseObject({
  error: z.optional(errorCauseSchema),
  status: z.optional(z.number()),
});

export const multiSearchSchema = z.object({ responses: z.array(multiSearchItemSchema) });

/** `aggregations` is absent when no chunk index exists yet (the pattern matched no shard). */
export const compositeSchema = z.object({
  aggregations: z.optional(
    z.object({
      documents: z.object({
        after_key: z.optional(z.record(z.string(), z.string())),
        buckets: z.array(
          z.object({
            key: z.object({
              document_id: z.string(),
              document_hash: z.string(),
              embedder_id: z.optional(z.string()),
            }),
          }),
        ),
      }),
    }),
  ),
});

export const countSchema = z.object({ count: z.number() });

/** A page of the (document_id) composite aggregation, with each document's first chunk's title and address. */
export const documentsSchema = z.object({
  aggregations: z.optional(
    z.object({
      documents: z.object({
        after_key: z.optional(z.record(z.string(), z.string())),
        buckets: z.array(
          z.object({
            key: z.object({ document_id: z.string() }),
            doc_count: z.number(),
            first: z.object({
              hits: z.object({
                hits: z.array(
                  z.object({
                    _source: z.object({
                      document_title: z.string(),
                      document_url: z.nullish(z.string()),
                    }),
                  }),
                ),
              }),
            }),
          }),
        ),
      }),
    }),
  ),
});

/** A document's chunks without their vectors, and how many match in all. */
export const documentChunksSchema = z.object({
  hits: z.object({
    total: z.object({ value: z.number() }),
    hits: z.array(z.object({ _source: z.omit(chunkSourceSchema, { embedding: true }) })),
  }),
});

export const deleteByQuerySchema = z.object({
  timed_out: z.boolean(),
  failures: z.array(
    z.looseObject({
      status: z.optional(z.number()),
      cause: z.optional(errorCauseSchema),
    }),
  ),
});

export const bulkResponseSchema = z.object({
  errors: z.boolean(),
  items: z.array(
    z.record(
      z.string(),
      z.object({
        _id: z.nullish(z.string()),
        status: z.number(),
        error: z.optional(errorCauseSchema),
      }),
    ),
  ),
});

/** One multi-search answer, or the error it carries. */
export function searchResult(
  operation: string,
  item: z.infer<typeof multiSearchItemSchema> | undefined,
) {
  if (!item) throw new Error(`OpenSearch answered ${operation} with fewer results than searches`);
  if (item.error) throw errorFromStatus(operation, item.status ?? 500, item.error);
  return item;
}

export function scoredChunks(
  body: unknown,
  orgId: string,
  scoreOf: (score: number) => number,
): ScoredChunk[] {
  const { hits } = hitsSchema.parse(body).hits;
  return (
    hits
      // The query filters by organization; this drops anything else, should it ever slip through.
      .filter((hit) => hit._source.org_id === orgId)
      .map(({ _score, _source }) => {
        const { embedding, document_url, ...rest } = _source;
        return {
          chunk: {
            ...rest,
            document_url: document_url ?? null,
            ...(embedding ? { embedding } : {}),
          },
          score: scoreOf(_score ?? 0),
        };
      })
  );
}
