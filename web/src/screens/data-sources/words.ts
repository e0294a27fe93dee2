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

export const FREQUENCY_NAMES: Readonly<Record<DataSource['sync_frequency'], string>> = {
  manual: 'Only when asked',
  hourly: 'Every hour',
  daily: 'Every day',
  weekly: 'Every week',
};
