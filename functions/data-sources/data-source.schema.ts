import * as z from 'zod';
import {
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
  name: z.string().trim().min(1, 'must not be empty').max(DATA_SOURCE_LIMITS.nameMax),
  config: config.optional(),
  sync_frequency: z.enum(SYNC_FREQUENCIES).optional(),
});

/** `type` may be sent but must not change. */
export const updateDataSourceBody = createDataSourceBody.partial();

export const listDataSourcesQuery = z.strictObject({
  ...paginationQuery,
  status: z.enum(DATA_SOURCE_STATUSES).optional(),
});

export const syncJobResource = z.object({
  id: z.string(),
  status: z.enum(SYNC_JOB_STATUSES),
  requested_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  documents_total: z.int().nullable(),
  documents_processed: z.int(),
  chunks_indexed: z.int(),
  error: z.string().nullable(),
});

export const dataSourceResource = z.object({
  id: z.string(),
  type: z.enum(DATA_SOURCE_TYPES),
  name: z.string(),
  config: z.record(z.string(), z.unknown()),
  sync_frequency: z.enum(SYNC_FREQUENCIES),
  /** D23: when the scheduler next syncs the source; `null` for `manual`. */
  next_sync_at: z.string().nullable(),
  status: z.enum(DATA_SOURCE_STATUSES),
  connection_status: z.enum(CONNECTION_STATUSES).optional(),
  chunks_indexed: z.int(),
  created_at: z.string(),
  updated_at: z.string(),
  current_job: syncJobResource.nullable(),
  last_job: syncJobResource.nullable(),
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

/** D24 status object. */
export const syncStatusResource = z.object({
  status: z.enum(DATA_SOURCE_STATUSES),
  job_id: z.string().nullable(),
  job_status: z.enum(SYNC_JOB_STATUSES).nullable(),
  chunks_indexed: z.int(),
  progress_pct: z.int(),
  estimated_completion: z.string().nullable(),
  documents_total: z.int().nullable(),
  documents_processed: z.int(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  error: z.string().nullable(),
});
