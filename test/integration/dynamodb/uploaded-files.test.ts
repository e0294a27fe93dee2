import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoDbDataSourceRepository } from '../../../layers/core/adapters/dynamodb/data-source-repository';
import { DynamoDbUploadedFileRepository } from '../../../layers/core/adapters/dynamodb/uploaded-file-repository';
import type { DataSource } from '../../../layers/core/domain/data-source';
import { newId } from '../../../layers/core/domain/ids';
import type { UploadedFile } from '../../../layers/core/domain/uploaded-file';
import { startTestTables, type TestTables } from '../../support/dynalite';

const at = '2026-11-21T10:00:00.000Z';

function file(dataSourceId: string): UploadedFile {
  return {
    id: newId('document'),
    data_source_id: dataSourceId,
    filename: 'handbook.pdf',
    content_type: 'application/pdf',
    status: 'awaiting_upload',
    size_bytes: null,
    sha256: null,
    chunks_indexed: 0,
    error: null,
    upload_expires_at: at,
    created_at: at,
    updated_at: at,
    indexed_at: null,
  };
}

function fileSource(status: DataSource['status']): DataSource {
  return {
    id: newId('dataSource'),
    type: 'file',
    name: 'Files',
    config: {},
    sync_frequency: 'manual',
    next_sync_at: null,
    status,
    chunks_indexed: 0,
    created_at: at,
    updated_at: at,
    current_job: null,
    last_job: null,
  };
}

/** D25's records on a real dynalite: scoped by organization and data source, expiring until the upload arrives. */
describe('Class: DynamoDbUploadedFileRepository', () => {
  let tables: TestTables;
  let files: DynamoDbUploadedFileRepository;
  const orgA = newId('organization');
  const orgB = newId('organization');

  beforeAll(async () => {
    tables = await startTestTables();
    files = new DynamoDbUploadedFileRepository(tables.client, tables.tableName);
  });
  afterAll(() => tables.end());

  const rawItem = async (orgId: string, dataSourceId: string, id: string) =>
    (
      await tables.client.send(
        new GetCommand({
          TableName: tables.tableName,
          Key: { PK: `ORG#${orgId}`, SK: `FILE#${dataSourceId}#${id}` },
        }),
      )
    ).Item;

  describe('createAll (P108: a batch of records, all or none)', () => {
    it('writes every record of a batch over the 25-item BatchWriteItem limit, each expiring', async () => {
      const dataSourceId = newId('dataSource');
      const batch = Array.from({ length: 100 }, () => file(dataSourceId));
      await files.createAll(orgA, batch, 1_800_000_000);
      expect((await files.list(orgA, dataSourceId)).map((record) => record.id).sort()).toEqual(
        batch.map((record) => record.id).sort(),
      );
      expect((await rawItem(orgA, dataSourceId, batch[99]?.id ?? ''))?.expires_at).toBe(
        1_800_000_000,
      );
      expect(await files.list(orgB, dataSourceId)).toEqual([]);
    });

    it('removes what it wrote when a later write of the batch fails, and throws', async () => {
      const dataSourceId = newId('dataSource');
      const batch = Array.from({ length: 60 }, () => file(dataSourceId));
      // DynamoDB refuses an item over 400 KB: the third BatchWriteItem call fails after two succeeded.
      batch[55] = { ...file(dataSourceId), filename: 'x'.repeat(420_000) };
      await expect(files.createAll(orgA, batch, 1_800_000_000)).rejects.toThrow();
      expect(await files.list(orgA, dataSourceId)).toEqual([]);
    });
  });

  it('expires a record until its upload arrives, then keeps it', async () => {
    const dataSourceId = newId('dataSource');
    const created = file(dataSourceId);
    await files.create(orgA, created, 1_800_000_000);
    expect((await rawItem(orgA, dataSourceId, created.id))?.expires_at).toBe(1_800_000_000);
    expect(await files.get(orgA, dataSourceId, created.id)).toEqual(created);

    const updated = await files.update(orgA, dataSourceId, created.id, {
      status: 'indexed',
      chunks_indexed: 3,
    });

    expect(updated).toEqual({ ...created, status: 'indexed', chunks_indexed: 3 });
    expect((await rawItem(orgA, dataSourceId, created.id))?.expires_at).toBeUndefined();
  });

  it('lists one data source’s files only, and only in their organization', async () => {
    const [one, other] = [newId('dataSource'), newId('dataSource')];
    const mine = file(one);
    await files.create(orgA, mine, 1_800_000_000);
    await files.create(orgA, file(other), 1_800_000_000);

    expect(await files.list(orgA, one)).toEqual([mine]);
    expect(await files.list(orgB, one)).toEqual([]);
    expect(await files.get(orgB, one, mine.id)).toBeNull();
    expect(await files.update(orgB, one, mine.id, { status: 'failed' })).toBeNull();
    expect(await files.delete(orgB, one, mine.id)).toBe(false);
    expect(await files.delete(orgA, one, mine.id)).toBe(true);
    expect(await files.list(orgA, one)).toEqual([]);
  });
});

/** P43: what an ingested file may change on its data source. */
describe('Method: DynamoDbDataSourceRepository.recordDirectIndexing', () => {
  let tables: TestTables;
  let sources: DynamoDbDataSourceRepository;
  const orgId = newId('organization');

  beforeAll(async () => {
    tables = await startTestTables();
    sources = new DynamoDbDataSourceRepository(tables.client, tables.tableName);
  });
  afterAll(() => tables.end());

  it.each([
    ['pending', 'active', true, 'active'],
    ['failed', 'active', true, 'active'],
    ['active', 'active', true, 'active'],
    ['processing', 'active', false, 'processing'],
    ['pending', 'failed', true, 'failed'],
    ['active', 'failed', false, 'active'],
    ['processing', 'failed', false, 'processing'],
  ] as const)(
    'a %s source asked to become %s: written %s, ends %s',
    async (status, asked, written, ends) => {
      const source = fileSource(status);
      await sources.create(orgId, source, []);

      const done = await sources.recordDirectIndexing(orgId, source.id, {
        chunksIndexed: 7,
        status: asked,
      });

      expect(done).toBe(written);
      const after = await sources.get(orgId, source.id);
      expect(after?.status).toBe(ends);
      expect(after?.chunks_indexed).toBe(written ? 7 : 0);
    },
  );

  it('updates only the count when no status is given, and not while a sync runs', async () => {
    const active = fileSource('active');
    const syncing = fileSource('processing');
    await sources.create(orgId, active, []);
    await sources.create(orgId, syncing, []);

    expect(await sources.recordDirectIndexing(orgId, active.id, { chunksIndexed: 2 })).toBe(true);
    expect(await sources.recordDirectIndexing(orgId, syncing.id, { chunksIndexed: 2 })).toBe(false);
    expect((await sources.get(orgId, active.id))?.chunks_indexed).toBe(2);
    expect((await sources.get(orgId, syncing.id))?.chunks_indexed).toBe(0);
  });
});
