import * as errors from '@opensearch-project/opensearch/lib/errors.js';
import * as z from 'zod/mini';
import { IndexDefinitionConflictError, SearchUnavailableError } from './errors';
import {
  chunkIndexDefinition,
  chunkIndexName,
  DEFINITION_VERSION,
  type EmbedderShape,
  KNN_ENGINE,
  KNN_SPACE_TYPE,
} from './index-definition';
import type { SearchCalls } from './search-client';
import { translateError, withSearchErrors } from './translate-error';

export interface EnsuredIndex {
  readonly indexName: string;
  readonly embedderId: string;
  /** `created`: it did not exist; `updated`: fields were added to its mappings; `unchanged`: it was as defined. */
  readonly outcome: 'created' | 'updated' | 'unchanged';
}

const mappingSchema = z.record(
  z.string(),
  z.object({
    mappings: z.looseObject({
      _meta: z.optional(
        z.looseObject({
          embedder_id: z.optional(z.string()),
          definition_version: z.optional(z.number()),
        }),
      ),
      properties: z.optional(
        z.record(
          z.string(),
          z.looseObject({
            type: z.optional(z.string()),
            dimension: z.optional(z.number()),
            method: z.optional(
              z.looseObject({ engine: z.optional(z.string()), space_type: z.optional(z.string()) }),
            ),
            // Set at the field's top level by some versions instead of inside `method`.
            space_type: z.optional(z.string()),
          }),
        ),
      ),
    }),
  }),
);

/**
 * Makes sure the chunk index of one embedder exists with the mappings of
 * index-definition.ts, and says what it did. Safe to repeat and to run
 * concurrently (the bootstrap on deploy, an adapter on its first write): a
 * second creator finds the index already there and checks it instead.
 *
 * An existing index is checked, never rebuilt: it must belong to this
 * embedder (`_meta.embedder_id`) and hold vectors of this dimension with the
 * same engine and space, else `IndexDefinitionConflictError` (a new mapping
 * for an existing field is impossible; it would take a new index and a
 * re-sync). Fields the definition gained since the index was made are added.
 *
 * @example
 * await ensureIndex(client, { prefix: 'svc-chunks', embedder: { id: 'offline-hash-v1/384', dimensions: 384 } });
 */
export async function ensureIndex(
  client: SearchCalls,
  options: { readonly prefix: string; readonly embedder: EmbedderShape },
): Promise<EnsuredIndex> {
  const { embedder } = options;
  const indexName = chunkIndexName(options.prefix, embedder.id);
  const definition = chunkIndexDefinition(embedder);
  const done = (outcome: EnsuredIndex['outcome']): EnsuredIndex => ({
    indexName,
    embedderId: embedder.id,
    outcome,
  });

  const exists = await withSearchErrors('check the index', () =>
    client.indices.exists({ index: indexName }),
  );
  if (exists.body !== true) {
    try {
      await client.indices.create({ index: indexName, body: definition });
      return done('created');
    } catch (error) {
      // Someone else created it between our check and our create: check theirs.
      if (!isAlreadyExists(error)) throw translateError('create the index', error);
    }
  }

  const response = await withSearchErrors('read the mappings', () =>
    client.indices.getMapping({ index: indexName }),
  );
  const mappings = mappingSchema.parse(response.body)[indexName]?.mappings;
  const existing = mappings?.properties ?? {};
  const vector = existing.embedding;
  const indexedWith = mappings?._meta?.embedder_id;
  if (indexedWith !== embedder.id) {
    throw new IndexDefinitionConflictError(
      indexName,
      `it holds chunks of embedder "${indexedWith ?? 'unknown'}", not "${embedder.id}"`,
    );
  }
  const engine = vector?.method?.engine;
  const spaceType = vector?.method?.space_type ?? vector?.space_type;
  if (
    vector?.type !== 'knn_vector' ||
    vector.dimension !== embedder.dimensions ||
    engine !== KNN_ENGINE ||
    spaceType !== KNN_SPACE_TYPE
  ) {
    throw new IndexDefinitionConflictError(
      indexName,
      `its embedding field is ${vector?.type ?? 'missing'} (${vector?.dimension ?? '?'} dimensions, ${engine ?? '?'}/${spaceType ?? '?'}); expected knn_vector (${embedder.dimensions} dimensions, ${KNN_ENGINE}/${KNN_SPACE_TYPE})`,
    );
  }

  const missing = Object.keys(definition.mappings.properties).filter((field) => !existing[field]);
  const outdated = (mappings?._meta?.definition_version ?? 0) < DEFINITION_VERSION;
  if (missing.length === 0 && !outdated) return done('unchanged');
  // `_routing` and `dynamic` are fixed at creation; properties and `_meta` can grow.
  await withSearchErrors('update the mappings', () =>
    client.indices.putMapping({
      index: indexName,
      body: { _meta: definition.mappings._meta, properties: definition.mappings.properties },
    }),
  );
  return done('updated');
}

function isAlreadyExists(error: unknown): boolean {
  if (!(error instanceof errors.ResponseError) || error.statusCode !== 400) return false;
  const body: unknown = error.body;
  return (
    typeof body === 'object' &&
    body !== null &&
    'error' in body &&
    typeof body.error === 'object' &&
    body.error !== null &&
    'type' in body.error &&
    body.error.type === 'resource_already_exists_exception'
  );
}

export interface EnsureIndexesOptions {
  readonly prefix: string;
  readonly embedders: readonly EmbedderShape[];
  /**
   * Tries per index while OpenSearch is unavailable (a domain that has just
   * become active can refuse connections or answer 503 for a short while).
   * @default 5
   */
  readonly attempts?: number;
  /** Waits before retry n (1, 2, …). @default 1 s, 2 s, 4 s, … */
  readonly backoff?: (retry: number) => Promise<void>;
}

/**
 * `ensureIndex` for each embedder in turn, retrying outages with backoff;
 * any other error (a conflicting index, a refused request) stops at once.
 * Used by the index bootstrap on deploy.
 */
export async function ensureIndexes(
  client: SearchCalls,
  options: EnsureIndexesOptions,
): Promise<EnsuredIndex[]> {
  const attempts = options.attempts ?? 5;
  const backoff =
    options.backoff ??
    ((retry: number) =>
      new Promise<void>((resolve) => setTimeout(resolve, 1000 * 2 ** (retry - 1))));
  const ensured: EnsuredIndex[] = [];
  for (const embedder of options.embedders) {
    for (let attempt = 1; ; attempt += 1) {
      try {
        ensured.push(await ensureIndex(client, { prefix: options.prefix, embedder }));
        break;
      } catch (error) {
        if (!(error instanceof SearchUnavailableError) || attempt >= attempts) throw error;
        await backoff(attempt);
      }
    }
  }
  return ensured;
}
