import * as z from 'zod/mini';
import {
  ALL_DATA_SOURCE_TYPES,
  CONNECTION_STATUSES,
  DATA_SOURCE_LIMITS,
  DATA_SOURCE_STATUSES,
  DATA_SOURCE_TYPES,
  SYNC_FREQUENCIES,
  SYNC_JOB_STATUSES,
} from '../../layers/core/domain/data-source';
import { paginationQuery } from '../../layers/core/http/pagination.schema';

/**
 * `config` is checked against the type's own schema by the use case
 * (domain/data-source-config.ts), so create and update share one rule.
 */
const config = z.record(z.string(), z.unknown());

export const createDataSourceBody = z.strictObject({
  type: z.enum(DATA_SOURCE_TYPES),
  name: z
    .string()
    .check(z.trim(), z.minLength(1, 'must not be empty'), z.maxLength(DATA_SOURCE_LIMITS.nameMax)),
  config: z.optional(config),
  sync_frequency: z.optional(z.enum(SYNC_FREQUENCIES)),
});

/** `type` may be sent but must not change. */
export const updateDataSourceBody = z.partial(createDataSourceBody);

export const listDataSourcesQuery = z.strictObject({
  ...paginationQuery,
  status: z.optional(z.enum(DATA_SOURCE_STATUSES)),
});

/** A document a sync did not index, and why. */
export const skippedDocument = z.object({ key: z.string(), reason: z.string() });

export const syncJobResource = z.object({
  id: z.string(),
  status: z.enum(SYNC_JOB_STATUSES),
  requested_at: z.string(),
  started_at: z.nullable(z.string()),
  finished_at: z.nullable(z.string()),
  documents_total: z.nullable(z.int()),
  documents_processed: z.int(),
  chunks_indexed: z.int(),
  /** How many documents the job skipped so far, and the first 20 with their reasons. */
  documents_skipped: z.int(),
  skipped: z.array(skippedDocument),
  error: z.nullable(z.string()),
});

export const dataSourceResource = z.object({
  id: z.string(),
  /** `kb` is the built-in knowledge base, never created here. */
  type: z.enum(ALL_DATA_SOURCE_TYPES),
  name: z.string(),
  config: z.record(z.string(), z.unknown()),
  sync_frequency: z.enum(SYNC_FREQUENCIES),
  /** When the scheduler next syncs the source; `null` for `manual`. */
  next_sync_at: z.nullable(z.string()),
  status: z.enum(DATA_SOURCE_STATUSES),
  connection_status: z.optional(z.enum(CONNECTION_STATUSES)),
  chunks_indexed: z.int(),
  created_at: z.string(),
  updated_at: z.string(),
  current_job: z.nullable(syncJobResource),
  last_job: z.nullable(syncJobResource),
});

export const dataSourceList = z.object({
  data_sources: z.array(dataSourceResource),
  total: z.int(),
  limit: z.int(),
  offset: z.int(),
});

export const syncAccepted = z.object({
  job: syncJobResource,
  data_source: dataSourceResource,
  created: z.boolean(),
});

/** The status object. */
export const syncStatusResource = z.object({
  status: z.enum(DATA_SOURCE_STATUSES),
  job_id: z.nullable(z.string()),
  job_status: z.nullable(z.enum(SYNC_JOB_STATUSES)),
  chunks_indexed: z.int(),
  progress_pct: z.int(),
  estimated_completion: z.nullable(z.string()),
  documents_total: z.nullable(z.int()),
  documents_processed: z.int(),
  /** As the job's, while it runs and after. */
  documents_skipped: z.int(),
  skipped: z.array(skippedDocument),
  started_at: z.nullable(z.string()),
  finished_at: z.nullable(z.string()),
  error: z.nullable(z.string()),
});
