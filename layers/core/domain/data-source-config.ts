import { z } from 'zod';
import { DATA_SOURCE_DEFAULTS, DATA_SOURCE_LIMITS, type DataSourceType } from './data-source';

const httpUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
  .max(DATA_SOURCE_LIMITS.urlMax)
  .refine((value) => {
    const url = new URL(value);
    return url.username === '' && url.password === '';
  }, 'must not carry credentials');

const httpsUrl = httpUrl.refine((value) => value.startsWith('https://'), 'must be an https URL');

const idList = z.array(z.string().min(1).max(256)).min(1).max(DATA_SOURCE_LIMITS.listItemsMax);

/**
 * `config` per data source type: the spec for `website`, D26 for connectors.
 * Unknown keys are refused (D4) so a typo never passes silently.
 */
export const DATA_SOURCE_CONFIG_SCHEMAS = {
  website: z.strictObject({
    url: httpUrl,
    max_pages: z
      .int()
      .min(DATA_SOURCE_LIMITS.maxPagesMin)
      .max(DATA_SOURCE_LIMITS.maxPagesMax)
      .default(DATA_SOURCE_DEFAULTS.maxPages),
  }),
  file: z.strictObject({}),
  confluence: z.strictObject({ base_url: httpsUrl, space_keys: idList }),
  slack: z.strictObject({ channel_ids: idList }),
  google_drive: z.strictObject({ folder_ids: idList }),
  sharepoint: z.strictObject({ site_url: httpsUrl, drive_ids: idList }),
} as const satisfies Record<DataSourceType, z.ZodType>;

export type DataSourceConfigIssue = { path: string; message: string };

/** Validates `config` for `type`, filling defaults; issues name the field under `config.`. */
export function parseDataSourceConfig(
  type: DataSourceType,
  config: unknown,
): { ok: true; config: Record<string, unknown> } | { ok: false; issues: DataSourceConfigIssue[] } {
  const result = DATA_SOURCE_CONFIG_SCHEMAS[type].safeParse(config ?? {});
  if (result.success) return { ok: true, config: result.data };
  return {
    ok: false,
    issues: result.error.issues.map((issue) => ({
      path: ['config', ...issue.path.map(String)].join('.'),
      message: issue.message,
    })),
  };
}
