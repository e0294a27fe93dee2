import type { components } from '../../api/schema';

export type DataSource = components['schemas']['DataSource'];
export type SourceType = DataSource['type'];
export type CreatableType = Exclude<SourceType, 'kb'>;

/** How each type is named on the screen. */
export const TYPE_NAMES: Readonly<Record<SourceType, string>> = {
  website: 'Website',
  file: 'Files',
  confluence: 'Confluence',
  slack: 'Slack',
  google_drive: 'Google Drive',
  sharepoint: 'SharePoint',
  kb: 'Knowledge base',
};

/** The types that sign in to a provider. */
export const CONNECTOR_TYPES: readonly SourceType[] = [
  'confluence',
  'slack',
  'google_drive',
  'sharepoint',
];

export function isConnector(type: SourceType): boolean {
  return CONNECTOR_TYPES.includes(type);
}

/** D22's statuses in words. */
export const STATUS_NAMES: Readonly<Record<DataSource['status'], string>> = {
  pending: 'Not synced yet',
  active: 'Ready',
  processing: 'Syncing',
  failed: 'Failed',
};

/** A file source is never synced: its files are indexed as they arrive. */
const FILE_STATUS_NAMES: Readonly<Record<DataSource['status'], string>> = {
  pending: 'No files yet',
  active: 'Ready',
  processing: 'Indexing',
  failed: 'Failed',
};

/**
 * What a source is doing, in words. A sync asked for (or under way) is
 * "Syncing" even before the service moves the source's own status, so a
 * new source never reads "Not synced yet" while its first sync runs.
 */
export function sourceStatusWords(
  source: Pick<DataSource, 'type' | 'status' | 'current_job'>,
): string {
  if (source.type === 'file') return FILE_STATUS_NAMES[source.status];
  if (source.current_job) return STATUS_NAMES.processing;
  return STATUS_NAMES[source.status];
}

/** Whether a source is read by syncs (everything but uploaded files, which are indexed on arrival). */
export function isSynced(type: SourceType): boolean {
  return type !== 'file';
}

export const FREQUENCY_NAMES: Readonly<Record<DataSource['sync_frequency'], string>> = {
  manual: 'Only when asked',
  hourly: 'Every hour',
  daily: 'Every day',
  weekly: 'Every week',
};
