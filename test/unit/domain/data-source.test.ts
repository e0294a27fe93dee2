import {
  type DataSource,
  firstSyncAt,
  isScheduled,
  newSyncJob,
  nextSyncAfter,
  SYNC_INTERVALS_MS,
  syncStatusOf,
} from '../../../layers/core/domain/data-source';
import { parseDataSourceConfig } from '../../../layers/core/domain/data-source-config';

const base: DataSource = {
  id: 'ds_01jf3000000000000000000000',
  type: 'website',
  name: 'Docs',
  config: { url: 'https://example.com', max_pages: 100 },
  sync_frequency: 'manual',
  next_sync_at: null,
  status: 'pending',
  chunks_indexed: 0,
  created_at: '2026-11-21T10:00:00.000Z',
  updated_at: '2026-11-21T10:00:00.000Z',
  current_job: null,
  last_job: null,
};

describe('Domain: sync status (D24)', () => {
  const now = new Date('2026-11-21T10:10:00.000Z');

  it('reports a source that never synced', () => {
    expect(syncStatusOf(base, now)).toMatchObject({
      status: 'pending',
      job_id: null,
      progress_pct: 0,
      estimated_completion: null,
    });
  });

  it('extrapolates completion from a running job', () => {
    // Prepare: 25 of 100 documents in 5 minutes → 15 more minutes
    const job = {
      ...newSyncJob('job_01jf3000000000000000000000', '2026-11-21T10:04:00.000Z'),
      status: 'running' as const,
      started_at: '2026-11-21T10:05:00.000Z',
      documents_total: 100,
      documents_processed: 25,
      chunks_indexed: 80,
    };

    // Act
    const status = syncStatusOf({ ...base, status: 'processing', current_job: job }, now);

    // Assess
    expect(status).toMatchObject({ progress_pct: 25, chunks_indexed: 80, documents_total: 100 });
    expect(status.estimated_completion).toBe('2026-11-21T10:25:00.000Z');
  });

  it('names the documents a running job skipped, with their reasons (P248)', () => {
    const job = {
      ...newSyncJob('job_01jf3000000000000000000000', '2026-11-21T10:04:00.000Z'),
      status: 'running' as const,
      started_at: '2026-11-21T10:05:00.000Z',
      documents_total: 10,
      documents_processed: 3,
      documents_skipped: 2,
      skipped: [
        { key: 'https://example.com/a.pdf', reason: 'not an HTML page' },
        { key: 'https://example.com/gone', reason: 'HTTP 404' },
      ],
    };

    const status = syncStatusOf({ ...base, status: 'processing', current_job: job }, now);

    expect(status).toMatchObject({ documents_skipped: 2, skipped: job.skipped });
  });

  it('says a source that never synced skipped nothing', () => {
    expect(syncStatusOf(base, now)).toMatchObject({ documents_skipped: 0, skipped: [] });
  });

  it('reports a finished job as complete with no estimate', () => {
    const job = {
      ...newSyncJob('job_01jf3000000000000000000000', '2026-11-21T10:00:00.000Z'),
      status: 'succeeded' as const,
      documents_total: 10,
      documents_processed: 10,
      finished_at: '2026-11-21T10:02:00.000Z',
    };
    const status = syncStatusOf(
      { ...base, status: 'active', chunks_indexed: 42, last_job: job },
      now,
    );
    expect(status).toMatchObject({
      progress_pct: 100,
      chunks_indexed: 42,
      estimated_completion: null,
    });
  });
});

describe('Domain: data source config', () => {
  it('fills the website max_pages default (D17)', () => {
    expect(parseDataSourceConfig('website', { url: 'https://example.com' })).toEqual({
      ok: true,
      config: { url: 'https://example.com', max_pages: 100 },
    });
  });

  it.each([
    [{ url: 'ftp://example.com' }, 'config.url'],
    [{ url: 'https://user:pw@example.com' }, 'config.url'],
    [{ url: 'https://example.com', max_pages: 0 }, 'config.max_pages'],
    [{ url: 'https://example.com', max_pages: 10_001 }, 'config.max_pages'],
  ])('refuses website config %j naming %s', (config, path) => {
    const result = parseDataSourceConfig('website', config);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.issues.map((issue) => issue.path)).toContain(path);
  });

  it('lists unknown config keys apart from invalid ones', () => {
    expect(parseDataSourceConfig('website', { url: 'https://example.com', depth: 2 })).toEqual({
      ok: false,
      issues: [],
      unknownFields: ['config.depth'],
    });
  });

  it('requires the D26 keys of connector types', () => {
    expect(parseDataSourceConfig('slack', {}).ok).toBe(false);
    expect(parseDataSourceConfig('slack', { channel_ids: ['C1'] }).ok).toBe(true);
    expect(
      parseDataSourceConfig('confluence', { base_url: 'http://wiki', space_keys: ['X'] }).ok,
    ).toBe(false);
    expect(
      parseDataSourceConfig('sharepoint', { site_url: 'https://s.example', drive_ids: ['d'] }).ok,
    ).toBe(true);
  });
});

describe('Domain: sync schedule (D23)', () => {
  const at = new Date('2026-11-21T10:00:00.000Z');

  it.each([
    ['hourly', '2026-11-21T11:00:00.000Z'],
    ['daily', '2026-11-22T10:00:00.000Z'],
    ['weekly', '2026-11-28T10:00:00.000Z'],
  ] as const)('schedules a %s source one interval later', (frequency, expected) => {
    expect(nextSyncAfter(frequency, at)).toBe(expected);
    expect(Date.parse(expected) - at.getTime()).toBe(SYNC_INTERVALS_MS[frequency]);
  });

  it('never schedules a manual source', () => {
    expect(nextSyncAfter('manual', at)).toBeNull();
    expect(firstSyncAt('manual', at)).toBeNull();
    expect(isScheduled('manual')).toBe(false);
  });

  it('makes a new scheduled source due at once (P40)', () => {
    for (const frequency of ['hourly', 'daily', 'weekly'] as const) {
      expect(isScheduled(frequency)).toBe(true);
      expect(firstSyncAt(frequency, at)).toBe(at.toISOString());
    }
  });

  it('keeps the schedule in UTC across a daylight-saving change', () => {
    // 2026-10-25 is the end of summer time in Europe: still exactly 24 hours.
    expect(nextSyncAfter('daily', new Date('2026-10-24T23:30:00.000Z'))).toBe(
      '2026-10-25T23:30:00.000Z',
    );
  });
});
