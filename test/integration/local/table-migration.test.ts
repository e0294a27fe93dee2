import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BatchWriteItemCommand,
  CreateTableCommand,
  type CreateTableCommandInput,
  DeleteTableCommand,
  DescribeTableCommand,
  ScanCommand,
} from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoDbDataSourceRepository } from '../../../layers/core/adapters/dynamodb/data-source-repository';
import { createDocumentClient } from '../../../layers/core/adapters/dynamodb/document-client';
import { keys, TABLE_KEYS } from '../../../layers/core/adapters/dynamodb/table-design';
import { newId } from '../../../layers/core/domain/ids';
import { type LocalDynamoDb, startDynalite } from '../../../lib/local/dynalite-server';
import { parseLocalConfig } from '../../../lib/local/local-config';
import { startLocalRuntime } from '../../../lib/local/runtime';
import { migrateTable, scheduleEarlierDataSources } from '../../../lib/local/table-migration';
import { mainTableDefinition } from '../../../lib/local/tables';
import { api, json } from '../../support/http-client';

const TABLE = 'svc';
const NOW = new Date('2026-11-21T10:00:00.000Z');

/** The main table as versions before the schedule index (GSI2, D23) created it. */
function tableBeforeSchedules(): CreateTableCommandInput {
  const current = mainTableDefinition(TABLE);
  const { gsi2 } = TABLE_KEYS;
  return {
    ...current,
    AttributeDefinitions: current.AttributeDefinitions?.filter(
      (a) => a.AttributeName !== gsi2.partitionKey && a.AttributeName !== gsi2.sortKey,
    ),
    GlobalSecondaryIndexes: current.GlobalSecondaryIndexes?.filter(
      (index) => index.IndexName !== gsi2.indexName,
    ),
  };
}

/** A client that throws (a crash, as far as the migration can tell) on the nth command of a kind. */
function crashingOn(
  client: DynamoDBDocumentClient,
  kind: abstract new (...args: never[]) => unknown,
  nth = 1,
): DynamoDBDocumentClient {
  let seen = 0;
  return {
    send: (command: unknown) => {
      if (command instanceof kind && ++seen === nth) {
        return Promise.reject(new Error(`crash at ${kind.name}`));
      }
      return client.send(command as never);
    },
  } as unknown as DynamoDBDocumentClient;
}

/** Items of every attribute type, as an earlier version would have left them. */
function earlierItems() {
  const daily = newId('dataSource');
  const manual = newId('dataSource');
  const dataSource = (id: string, frequency: string) => ({
    ...keys.dataSource('org_old', id),
    entity: 'data_source',
    org_id: 'org_old',
    id,
    type: 'website',
    name: `Docs ${frequency}`,
    config: { url: 'https://example.com', max_pages: 10 },
    sync_frequency: frequency,
    status: 'active',
    chunks_indexed: 12,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    current_job: null,
    last_job: null,
  });
  return {
    daily,
    manual,
    items: [
      dataSource(daily, 'daily'),
      dataSource(manual, 'manual'),
      {
        PK: 'ORG#org_old',
        SK: 'WEBHOOK#wh_1',
        entity: 'webhook',
        secrets: new Uint8Array([0, 1, 2, 250, 255]),
        tags: new Set(['a', 'b']),
        counts: new Set([1, 2.5]),
        nested: { list: [1, 'two', { three: true }, null], blob: new Uint8Array([9, 8]) },
        GSI1PK: 'OUTBOX#1',
        GSI1SK: 'evt_1',
      },
      ...Array.from({ length: 60 }, (_, i) => ({
        PK: `RATE#key_${i}#Read`,
        SK: 'GCRA',
        tat: 1_700_000_000_000 + i,
      })),
    ],
  };
}

/** dynalite makes a new table ACTIVE a moment after CreateTable answers. */
async function waitUntilActive(client: DynamoDBDocumentClient): Promise<void> {
  for (;;) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: TABLE }));
    if (Table?.TableStatus === 'ACTIVE') return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function scanAll(client: DynamoDBDocumentClient, table = TABLE) {
  const { Items = [] } = await client.send(new ScanCommand({ TableName: table }));
  return Items.sort((a, b) => `${a.PK?.S}|${a.SK?.S}`.localeCompare(`${b.PK?.S}|${b.SK?.S}`));
}

/**
 * The local migration (P40) on a real dynalite: a table kept under
 * SVC_DATA_DIR by a version without GSI2 is rebuilt with it, every item kept
 * (and scheduled data sources put on the schedule), and a rebuild that
 * crashes at any step is finished on the next start.
 */
describe('Local table migration: adding GSI2 (D23) to an earlier table', () => {
  let dataDir: string;
  /** Stopped early by the test that hands the data directory to the runtime. */
  let dynamo: LocalDynamoDb | null;
  let client: DynamoDBDocumentClient;
  let seed: ReturnType<typeof earlierItems>;
  let before: Awaited<ReturnType<typeof scanAll>>;
  const upgrade = { backupDir: '', upgradeItem: scheduleEarlierDataSources(NOW) };

  const indexNames = async () =>
    (
      (await client.send(new DescribeTableCommand({ TableName: TABLE }))).Table
        ?.GlobalSecondaryIndexes ?? []
    )
      .map((index) => index.IndexName)
      .sort();
  const backups = () => readdirSync(dataDir).filter((name) => name.includes('migration-backup'));

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'svc-migration-'));
    upgrade.backupDir = dataDir;
    dynamo = await startDynalite({ host: '127.0.0.1', port: 0, path: join(dataDir, 'dynamodb') });
    client = createDocumentClient({ endpoint: dynamo.endpoint });
    await client.send(new CreateTableCommand(tableBeforeSchedules()));
    await waitUntilActive(client);
    seed = earlierItems();
    for (const item of seed.items) {
      await client.send(new PutCommand({ TableName: TABLE, Item: item }));
    }
    before = await scanAll(client);
  });
  afterEach(async () => {
    if (dynamo) {
      client.destroy();
      await dynamo.end();
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** What the rebuilt table must hold: every item as it was, the data sources upgraded. */
  const expectMigrated = async () => {
    expect(await indexNames()).toEqual(['GSI1', 'GSI2']);
    const after = await scanAll(client);
    const upgraded = before.map(scheduleEarlierDataSources(NOW));
    expect(after).toEqual(upgraded);
    expect(backups()).toEqual([]);
    // The daily source is on the schedule, due now; the manual one is not.
    const repository = new DynamoDbDataSourceRepository(client, TABLE);
    expect(await repository.listDueForSync(NOW.toISOString())).toEqual([
      {
        orgId: 'org_old',
        dataSourceId: seed.daily,
        frequency: 'daily',
        nextSyncAt: NOW.toISOString(),
      },
    ]);
    expect(await repository.get('org_old', seed.manual)).toMatchObject({
      sync_frequency: 'manual',
      next_sync_at: null,
      chunks_indexed: 12,
    });
  };

  it('rebuilds the table with GSI2 and keeps every item, binary values and sets included', async () => {
    expect(await indexNames()).toEqual(['GSI1']);

    expect(await migrateTable(client, mainTableDefinition(TABLE), upgrade)).toBe('rebuilt');

    await expectMigrated();
    const webhook = (await scanAll(client)).find((item) => item.SK?.S === 'WEBHOOK#wh_1');
    expect(webhook?.secrets?.B).toEqual(new Uint8Array([0, 1, 2, 250, 255]));
    expect(webhook?.nested?.M?.blob?.B).toEqual(new Uint8Array([9, 8]));
    expect(new Set(webhook?.counts?.NS)).toEqual(new Set(['1', '2.5']));
  });

  it('leaves a table that already has its indexes alone', async () => {
    await migrateTable(client, mainTableDefinition(TABLE), upgrade);
    const once = await scanAll(client);

    expect(await migrateTable(client, mainTableDefinition(TABLE), upgrade)).toBe('unchanged');
    expect(await scanAll(client)).toEqual(once);
  });

  it('does nothing for a table that does not exist yet (ensureTables creates it)', async () => {
    expect(await migrateTable(client, { ...mainTableDefinition('svc-new') }, upgrade)).toBe(
      'unchanged',
    );
    await expect(client.send(new DescribeTableCommand({ TableName: 'svc-new' }))).rejects.toThrow(
      /not found/i,
    );
  });

  it.each([
    ['while writing the backup', ScanCommand, 1, 'rebuilt'],
    ['after the backup, before deleting the table', DeleteTableCommand, 1, 'resumed'],
    ['after deleting the table, before creating it', CreateTableCommand, 1, 'resumed'],
    ['half way through writing the items back', BatchWriteItemCommand, 2, 'resumed'],
  ] as const)('finishes after a crash %s', async (_when, kind, nth, outcome) => {
    // Act: the crash, then the next start
    await expect(
      migrateTable(crashingOn(client, kind, nth), mainTableDefinition(TABLE), upgrade),
    ).rejects.toThrow(/crash/);
    // Past the commit point, the backup is there for the next start to finish from.
    expect(existsSync(join(dataDir, `${TABLE}.migration-backup.jsonl`))).toBe(
      outcome === 'resumed',
    );
    const next = await migrateTable(client, mainTableDefinition(TABLE), upgrade);

    // Assess
    expect(next).toBe(outcome);
    await expectMigrated();
  });

  it('is what `npm start` does with an earlier data directory: the daily source syncs on schedule', async () => {
    // Prepare: the data directory as an earlier version left it
    client.destroy();
    await dynamo?.end();
    dynamo = null;

    // Act
    const runtime = await startLocalRuntime(
      parseLocalConfig({
        SVC_DATA_DIR: dataDir,
        PORT: '0',
        SVC_DYNAMODB_PORT: '0',
        HOST: '127.0.0.1',
        SVC_WORKER_INTERVAL_MS: '0',
      }),
      { clock: { now: () => NOW } },
    );
    try {
      // Assess
      const migrated = createDocumentClient({ endpoint: runtime.dynamoDbEndpoint });
      try {
        const described = await migrated.send(new DescribeTableCommand({ TableName: TABLE }));
        expect(
          described.Table?.GlobalSecondaryIndexes?.map((index) => index.IndexName).sort(),
        ).toEqual(['GSI1', 'GSI2']);
        expect(await scanAll(migrated)).toEqual(
          expect.arrayContaining(before.map(scheduleEarlierDataSources(NOW))),
        );
      } finally {
        migrated.destroy();
      }
      expect(existsSync(join(dataDir, `${TABLE}.migration-backup.jsonl`))).toBe(false);
      const run = await runtime.workers.stepSchedule();
      expect(run).toMatchObject({ due: 1, queued: 1, failures: [] });
      const key = runtime.bootstrap.newKey ?? '';
      // The bootstrap organization is not org_old: its key cannot read the old source.
      const response = await api(runtime.url, `/api/v1/data-sources/${seed.daily}`, { key });
      expect(response.status).toBe(404);
      expect(json(response).error.code).toBe('not_found');
    } finally {
      await runtime.end();
    }
  });
});
