import * as z from 'zod/mini';
import '../zod-english';
import { DATA_SOURCE_DEFAULTS, DATA_SOURCE_LIMITS, type DataSourceType } from './data-source';

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).check(
  z.maxLength(DATA_SOURCE_LIMITS.urlMax),
  z.refine((value) => {
    // zod runs this refinement even when the URL check above failed; such a
    // value is already reported, and must not throw here (that would be a 500).
    if (!URL.canParse(value)) return true;
    const url = new URL(value);
    return url.username === '' && url.password === '';
  }, 'must not carry credentials'),
);

const httpsUrl = httpUrl.check(
  z.refine((value) => value.startsWith('https://'), 'must be an https URL'),
);

const idList = z
  .array(z.string().check(z.minLength(1), z.maxLength(256)))
  .check(z.minLength(1), z.maxLength(DATA_SOURCE_LIMITS.listItemsMax));

/** Slack conversation ids of channels: public (`C…`) or private (`G…` in older workspaces, `C…` now). */
const slackChannelIds = z
  .array(
    z
      .string()
      .check(
        z.maxLength(32),
        z.regex(/^[CG][A-Z0-9]+$/, 'must be a Slack channel id (C… or G…, as in the channel link)'),
      ),
  )
  .check(z.minLength(1), z.maxLength(DATA_SOURCE_LIMITS.listItemsMax));

/**
 * `config` per data source type: the spec for `website`, D26 for connectors.
 * Unknown keys are refused so a typo never passes silently.
 */
export const DATA_SOURCE_CONFIG_SCHEMAS = {
  website: z.strictObject({
    url: httpUrl,
    max_pages: z._default(
      z
        .int()
        .check(
          z.minimum(DATA_SOURCE_LIMITS.maxPagesMin),
          z.maximum(DATA_SOURCE_LIMITS.maxPagesMax),
        ),
      DATA_SOURCE_DEFAULTS.maxPages,
    ),
  }),
  file: z.strictObject({}),
  confluence: z.strictObject({ base_url: httpsUrl, space_keys: idList }),
  slack: z.strictObject({ channel_ids: slackChannelIds }),
  // The connectors' `folder_ids`, and the `shared_drive_ids`: at least one of them.
  google_drive: z
    .strictObject({ folder_ids: z.optional(idList), shared_drive_ids: z.optional(idList) })
    .check(
      z.refine(
        (config) => config.folder_ids !== undefined || config.shared_drive_ids !== undefined,
        {
          path: ['folder_ids'],
          message: 'is required unless shared_drive_ids is given',
        },
      ),
    ),
  // The site (a SharePoint site or a OneDrive for Business address) and, optionally, which of its drives.
  sharepoint: z.strictObject({ site_url: httpsUrl, drive_ids: z.optional(idList) }),
} as const satisfies Record<DataSourceType, z.ZodMiniType>;

export type DataSourceConfigIssue = { path: string; message: string };

export type ParsedDataSourceConfig =
  | { ok: true; config: Record<string, unknown> }
  | { ok: false; issues: DataSourceConfigIssue[]; unknownFields: string[] };

/**
 * Validates `config` for `type`, filling defaults. Issues name the field
 * under `config.`; unknown keys are listed apart, as at the top level.
 */
export function parseDataSourceConfig(
  type: DataSourceType,
  config: unknown,
): ParsedDataSourceConfig {
  const result = DATA_SOURCE_CONFIG_SCHEMAS[type].safeParse(config ?? {});
  if (result.success) return { ok: true, config: result.data };
  const path = (parts: readonly PropertyKey[]) => ['config', ...parts.map(String)].join('.');
  return {
    ok: false,
    issues: result.error.issues
      .filter((issue) => issue.code !== 'unrecognized_keys')
      .map((issue) => ({ path: path(issue.path), message: issue.message })),
    unknownFields: result.error.issues.flatMap((issue) =>
      issue.code === 'unrecognized_keys' ? issue.keys.map((key) => path([...issue.path, key])) : [],
    ),
  };
}
