import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoDbDataSourceRepository } from '../../../layers/core/adapters/dynamodb/data-source-repository';
import { keys } from '../../../layers/core/adapters/dynamodb/table-design';
import {
  type DataSource,
  firstSyncAt,
  nextSyncAfter,
  type SyncFrequency,
} from '../../../layers/core/domain/data-source';
import { newId } from '../../../layers/core/domain/ids';
import { startTestTables, type TestTables } from '../../support/dynalite';

const T0 = new Date('2026-11-21T10:00:00.000Z');
const iso = (ms: number) => new Date(T0.getTime() + ms).toISOString();

function dataSource(frequency: SyncFrequency, nextSyncAt: string | null): DataSource {
  return {
    id: newId('dataSource'),
    type: 'website',
    name: 'Docs',
    config: { url: 'https://example.com', max_pages: 10 },
    sync_frequency: frequency,
    next_sync_at: nextSyncAt,
    status: 'pending',
    chunks_indexed: 0,
    created_at: T0.toISOString(),
    updated_at: T0.toISOString(),
    current_job: null,
    last_job: null,
  };
}

/**
 * D23: the schedule index (GSI2) on a real dynalite: what is due, the
 * conditional move of `next_sync_at`, and leaving the index on `manual`.
 */
describe('DynamoDB: the sync schedule (GSI2, D23)', () => {
  let tables: TestTables;
  let sources: DynamoDbDataSourceRepository;
  /** Each test's organizations are its own, but GSI2 spans the table: filter by them. */
  const dueIn = async (orgs: readonly string[], now: string) =>
    (await sources.listDueForSync(now)).filter((due) => orgs.includes(due.orgId));
  const rawItem = async (orgId: string, id: string) =>
    (
      await tables.client.send(
        new GetCommand({ TableName: tables.tableName, Key: keys.dataSource(orgId, id) }),
      )
    ).Item ?? {};

  beforeAll(async () => {
    tables = await startTestTables();
    sources = new DynamoDbDataSourceRepository(tables.client, tables.tableName);
  });
  afterAll(() => tables.end());

  it('lists the scheduled sources due by now, of every organization, and nothing else', async () => {
    // Prepare: twelve due in three organizations (spread over the shards),
    // one due later, one manual.
    const orgs = ['org_due_a', 'org_due_b', 'org_due_c'];
    const due: Array<{ orgId: string; source: DataSource }> = [];
    for (let i = 0; i < 12; i += 1) {
      const orgId = orgs[i % 3] as string;
      const frequency = (['hourly', 'daily', 'weekly'] as const)[i % 3] ?? 'daily';
      const source = dataSource(frequency, iso(-i * 60_000));
      await sources.create(orgId, source, []);
      due.push({ orgId, source });
    }
    await sources.create('org_due_a', dataSource('daily', iso(60_000)), []);
    await sources.create('org_due_a', dataSource('manual', null), []);

    // Act
    const listed = await dueIn(orgs, T0.toISOString());

    // Assess
    expect(listed.sort((a, b) => a.dataSourceId.localeCompare(b.dataSourceId))).toEqual(
      due
        .map(({ orgId, source }) => ({
          orgId,
          dataSourceId: source.id,
          frequency: source.sync_frequency,
          nextSyncAt: source.next_sync_at,
        }))
        .sort((a, b) => a.dataSourceId.localeCompare(b.dataSourceId)),
    );
    const partitions = new Set<unknown>();
    for (const { orgId, source } of due) partitions.add((await rawItem(orgId, source.id)).GSI2PK);
    expect(partitions.size).toBeGreaterThan(1);
    for (const partition of partitions) expect(partition).toMatch(/^SCHEDULE#[0-3]$/);
  });

  it('counts a source due exactly now, not one due a millisecond later', async () => {
    const now = dataSource('hourly', iso(0));
    const later = dataSource('hourly', iso(1));
    await sources.create('org_edge', now, []);
    await sources.create('org_edge', later, []);

    expect((await dueIn(['org_edge'], iso(0))).map((d) => d.dataSourceId)).toEqual([now.id]);
    expect((await dueIn(['org_edge'], iso(1))).map((d) => d.dataSourceId).sort()).toEqual(
      [now.id, later.id].sort(),
    );
  });

  it('keeps the index attributes out of the entity', async () => {
    const source = dataSource('daily', firstSyncAt('daily', T0));
    await sources.create('org_entity', source, []);

    expect(await sources.get('org_entity', source.id)).toEqual(source);
    expect(await rawItem('org_entity', source.id)).toMatchObject({
      GSI2PK: expect.stringMatching(/^SCHEDULE#/),
      GSI2SK: `${T0.toISOString()}#org_entity#${source.id}`,
    });
  });

  it('moves next_sync_at once: the second move from the same time fails', async () => {
    // Prepare
    const source = dataSource('daily', iso(0));
    await sources.create('org_move', source, []);
    const move = { frequency: 'daily' as const, from: iso(0), to: nextSyncAfter('daily', T0) };

    // Act
    const results = await Promise.all(
      Array.from({ length: 6 }, () => sources.moveNextSync('org_move', source.id, move)),
    );

    // Assess
    expect(results.filter(Boolean)).toHaveLength(1);
    expect((await sources.get('org_move', source.id))?.next_sync_at).toBe(move.to);
    expect(await dueIn(['org_move'], iso(0))).toEqual([]);
    expect(await dueIn(['org_move'], move.to)).toEqual([
      { orgId: 'org_move', dataSourceId: source.id, frequency: 'daily', nextSyncAt: move.to },
    ]);
    expect((await rawItem('org_move', source.id)).GSI2SK).toBe(`${move.to}#org_move#${source.id}`);
  });

  it('refuses a move when the frequency changed, the source is gone or in another organization', async () => {
    const source = dataSource('hourly', iso(0));
    await sources.create('org_refuse', source, []);
    const to = nextSyncAfter('hourly', T0);

    expect(
      await sources.moveNextSync('org_refuse', source.id, { frequency: 'daily', from: iso(0), to }),
    ).toBe(false);
    expect(
      await sources.moveNextSync('org_other', source.id, { frequency: 'hourly', from: iso(0), to }),
    ).toBe(false);
    expect(await rawItem('org_other', source.id)).toEqual({});

    expect(await sources.delete('org_refuse', source.id)).toBe(true);
    expect(
      await sources.moveNextSync('org_refuse', source.id, {
        frequency: 'hourly',
        from: iso(0),
        to,
      }),
    ).toBe(false);
    expect(await rawItem('org_refuse', source.id)).toEqual({});
  });

  it('takes a source turned manual out of the index, and puts it back when scheduled again', async () => {
    // Prepare
    const source = dataSource('weekly', iso(0));
    await sources.create('org_manual', source, []);

    // Act
    const manual = await sources.update(
      'org_manual',
      source.id,
      { sync_frequency: 'manual', next_sync_at: null },
      iso(1),
    );

    // Assess
    expect(manual).toMatchObject({ sync_frequency: 'manual', next_sync_at: null });
    const item = await rawItem('org_manual', source.id);
    expect(item).not.toHaveProperty('GSI2PK');
    expect(item).not.toHaveProperty('GSI2SK');
    expect(await dueIn(['org_manual'], iso(365 * 86_400_000))).toEqual([]);
    expect(
      await sources.moveNextSync('org_manual', source.id, {
        frequency: 'weekly',
        from: iso(0),
        to: iso(1),
      }),
    ).toBe(false);

    const again = await sources.update(
      'org_manual',
      source.id,
      { sync_frequency: 'hourly', next_sync_at: iso(3_600_000) },
      iso(2),
    );
    expect(again).toMatchObject({ sync_frequency: 'hourly', next_sync_at: iso(3_600_000) });
    expect((await dueIn(['org_manual'], iso(3_600_000))).map((d) => d.dataSourceId)).toEqual([
      source.id,
    ]);
  });

  it('leaves the schedule alone on updates that do not touch it', async () => {
    const source = dataSource('daily', iso(0));
    await sources.create('org_rename', source, []);

    await sources.update('org_rename', source.id, { name: 'Renamed' }, iso(1));

    expect((await dueIn(['org_rename'], iso(0))).map((d) => d.dataSourceId)).toEqual([source.id]);
  });

  it('reads a data source written before schedules existed as unscheduled', async () => {
    const { next_sync_at: _, ...earlier } = dataSource('manual', null);
    await tables.client.send(
      new PutCommand({
        TableName: tables.tableName,
        Item: {
          ...keys.dataSource('org_earlier', earlier.id),
          entity: 'data_source',
          org_id: 'org_earlier',
          ...earlier,
        },
      }),
    );

    expect(await sources.get('org_earlier', earlier.id)).toEqual({
      ...earlier,
      next_sync_at: null,
    });
  });
});
