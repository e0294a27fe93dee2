import { once } from 'node:events';
import {
  closeSync,
  createReadStream,
  createWriteStream,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import {
  type AttributeValue,
  BatchWriteItemCommand,
  type BatchWriteItemCommandOutput,
  CreateTableCommand,
  type CreateTableCommandInput,
  DeleteTableCommand,
  DescribeTableCommand,
  ResourceNotFoundException,
  ScanCommand,
  type ScanCommandOutput,
  type TableDescription,
  type WriteRequest,
} from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { scheduleIndexKeys } from '../../layers/core/adapters/dynamodb/data-source-repository';
import { firstSyncAt, SYNC_FREQUENCIES } from '../../layers/core/domain/data-source';

type Item = Record<string, AttributeValue>;

/** Rewrites an item on its way back into the rebuilt table. */
export type ItemUpgrade = (item: Item) => Item;

export type MigrationOutcome =
  /** Missing (ensureTables creates it) or already as defined. */
  | 'unchanged'
  /** Its indexes differed: backed up, rebuilt with the definition, restored. */
  | 'rebuilt'
  /** A rebuild interrupted earlier was finished from its backup. */
  | 'resumed';

/** BatchWriteItem takes at most 25 requests a call. */
const BATCH_WRITE_MAX = 25;
/** How long a table may take to be deleted or created (dynalite: a moment). */
const TABLE_WAIT_MS = 30_000;

/**
 * Rebuilds a local (dynalite) table whose secondary indexes differ from
 * `definition`: dynalite's UpdateTable cannot add an index, and ensureTables
 * only creates missing tables, so a table kept under SVC_DATA_DIR by an
 * earlier version (say, without the schedule index GSI2) is copied out,
 * deleted, created anew and filled again.
 *
 * Crash-safe at every step, through one backup file in `backupDir`:
 *
 * ```
 * scan → <table>.migration-backup.jsonl.partial ─fsync, rename─▶ .jsonl   (the commit point)
 *      → delete table → create table → write every item back → remove .jsonl
 * ```
 *
 * Before the rename the table is untouched and a leftover `.partial` is
 * discarded; after it, a leftover backup means "finish the rebuild": the
 * table is re-created if it still differs, and every backed-up item is put
 * back (puts overwrite, so writing one twice is harmless). Run before
 * anything else uses the table.
 */
export async function migrateTable(
  client: DynamoDBDocumentClient,
  definition: CreateTableCommandInput,
  options: { readonly backupDir: string; readonly upgradeItem?: ItemUpgrade },
): Promise<MigrationOutcome> {
  const tableName = requiredName(definition);
  const backup = join(options.backupDir, `${tableName}.migration-backup.jsonl`);
  const partial = `${backup}.partial`;
  rmSync(partial, { force: true });

  if (existsSync(backup)) {
    await rebuildFrom(client, definition, backup, options.upgradeItem);
    return 'resumed';
  }
  const current = await describe(client, tableName);
  if (!current || sameIndexes(current, definition)) return 'unchanged';

  mkdirSync(options.backupDir, { recursive: true });
  await writeBackup(client, tableName, partial);
  renameSync(partial, backup);
  syncDirectory(options.backupDir);
  await rebuildFrom(client, definition, backup, options.upgradeItem);
  return 'rebuilt';
}

/**
 * The upgrade for tables from before schedules: a data source with a
 * scheduled frequency and no `next_sync_at` becomes due now (as a new one
 * would) and enters the schedule index.
 */
export function scheduleEarlierDataSources(now: Date): ItemUpgrade {
  return (item) => {
    const frequency = SYNC_FREQUENCIES.find((f) => f === item.sync_frequency?.S);
    const orgId = item.org_id?.S;
    const id = item.id?.S;
    if (
      item.entity?.S !== 'data_source' ||
      item.next_sync_at !== undefined ||
      item.deleted_at !== undefined ||
      !frequency ||
      !orgId ||
      !id
    )
      return item;
    const nextSyncAt = firstSyncAt(frequency, now);
    if (!nextSyncAt) return { ...item, next_sync_at: { NULL: true } };
    const index = scheduleIndexKeys(orgId, id, nextSyncAt);
    return {
      ...item,
      next_sync_at: { S: nextSyncAt },
      GSI2PK: { S: index.GSI2PK },
      GSI2SK: { S: index.GSI2SK },
    };
  };
}

function requiredName(definition: CreateTableCommandInput): string {
  if (!definition.TableName) throw new Error('A table definition needs a TableName');
  return definition.TableName;
}

async function describe(
  client: DynamoDBDocumentClient,
  tableName: string,
): Promise<TableDescription | null> {
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    return Table ?? null;
  } catch (error) {
    if (error instanceof ResourceNotFoundException) return null;
    throw error;
  }
}

/** Index names, key schemas and projections, in a comparable form. */
function indexShape(
  indexes: ReadonlyArray<{
    IndexName?: string | undefined;
    KeySchema?: ReadonlyArray<{ AttributeName?: string; KeyType?: string }> | undefined;
    Projection?:
      | { ProjectionType?: string | undefined; NonKeyAttributes?: string[] | undefined }
      | undefined;
  }> = [],
): string {
  return JSON.stringify(
    indexes
      .map((index) => ({
        name: index.IndexName,
        keys: (index.KeySchema ?? []).map((key) => `${key.AttributeName}:${key.KeyType}`),
        projection: index.Projection?.ProjectionType ?? 'ALL',
        attributes: [...(index.Projection?.NonKeyAttributes ?? [])].sort(),
      }))
      .sort((a, b) => String(a.name).localeCompare(String(b.name))),
  );
}

function sameIndexes(current: TableDescription, definition: CreateTableCommandInput): boolean {
  return (
    indexShape(current.GlobalSecondaryIndexes) === indexShape(definition.GlobalSecondaryIndexes) &&
    indexShape(current.LocalSecondaryIndexes) === indexShape(definition.LocalSecondaryIndexes)
  );
}

/** Every item, one JSON line each (binary values as base64), flushed to disk. */
async function writeBackup(
  client: DynamoDBDocumentClient,
  tableName: string,
  file: string,
): Promise<void> {
  const out = createWriteStream(file, { flags: 'w' });
  let startKey: Item | undefined;
  do {
    const page: ScanCommandOutput = await client.send(
      new ScanCommand({ TableName: tableName, ExclusiveStartKey: startKey, ConsistentRead: true }),
    );
    for (const item of page.Items ?? []) {
      if (!out.write(`${JSON.stringify(encodeItem(item))}\n`)) await once(out, 'drain');
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  await new Promise<void>((resolve, reject) => {
    out.once('error', reject);
    out.end(resolve);
  });
  const fd = openSync(file, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Makes a rename inside `directory` durable (where the platform allows opening a directory). */
function syncDirectory(directory: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(directory, 'r');
    fsyncSync(fd);
  } catch {
    // Windows cannot fsync a directory; the rename is as durable as it gets there.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

async function rebuildFrom(
  client: DynamoDBDocumentClient,
  definition: CreateTableCommandInput,
  backup: string,
  upgradeItem: ItemUpgrade = (item) => item,
): Promise<void> {
  const tableName = requiredName(definition);
  let current = await describe(client, tableName);
  if (current && !sameIndexes(current, definition)) {
    await client.send(new DeleteTableCommand({ TableName: tableName }));
    await waitFor(client, tableName, (table) => table === null);
    current = null;
  }
  if (!current) {
    await client.send(new CreateTableCommand(definition));
    await waitFor(client, tableName, (table) => table?.TableStatus === 'ACTIVE');
  }

  const lines = createInterface({ input: createReadStream(backup), crlfDelay: Infinity });
  let batch: WriteRequest[] = [];
  for await (const line of lines) {
    if (line.trim() === '') continue;
    const item = upgradeItem(decodeItem(JSON.parse(line) as Record<string, JsonAttribute>));
    batch.push({ PutRequest: { Item: item } });
    if (batch.length === BATCH_WRITE_MAX) {
      await writeAll(client, tableName, batch);
      batch = [];
    }
  }
  if (batch.length > 0) await writeAll(client, tableName, batch);
  rmSync(backup);
}

/** Writes a batch, retrying what DynamoDB leaves unprocessed. */
async function writeAll(
  client: DynamoDBDocumentClient,
  tableName: string,
  requests: WriteRequest[],
): Promise<void> {
  let pending: WriteRequest[] | undefined = requests;
  while (pending && pending.length > 0) {
    const result: BatchWriteItemCommandOutput = await client.send(
      new BatchWriteItemCommand({ RequestItems: { [tableName]: pending } }),
    );
    pending = result.UnprocessedItems?.[tableName];
  }
}

async function waitFor(
  client: DynamoDBDocumentClient,
  tableName: string,
  done: (table: TableDescription | null) => boolean,
): Promise<void> {
  const deadline = Date.now() + TABLE_WAIT_MS;
  while (!done(await describe(client, tableName))) {
    if (Date.now() > deadline) throw new Error(`Table ${tableName} did not settle in time`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** An attribute value as a backup line holds it: binary values as base64 strings. */
type JsonAttribute = Record<string, unknown>;

function encodeItem(item: Item): Record<string, JsonAttribute> {
  return Object.fromEntries(Object.entries(item).map(([name, value]) => [name, encode(value)]));
}

function decodeItem(item: Record<string, JsonAttribute>): Item {
  return Object.fromEntries(Object.entries(item).map(([name, value]) => [name, decode(value)]));
}

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

function encode(value: AttributeValue): JsonAttribute {
  if (value.B !== undefined) return { B: base64(value.B) };
  if (value.BS !== undefined) return { BS: value.BS.map(base64) };
  if (value.M !== undefined) return { M: encodeItem(value.M) };
  if (value.L !== undefined) return { L: value.L.map(encode) };
  return { ...value };
}

function decode(value: JsonAttribute): AttributeValue {
  if (typeof value.B === 'string') return { B: Buffer.from(value.B, 'base64') };
  if (Array.isArray(value.BS))
    return { BS: (value.BS as string[]).map((b) => Buffer.from(b, 'base64')) };
  if (value.M && typeof value.M === 'object')
    return { M: decodeItem(value.M as Record<string, JsonAttribute>) };
  if (Array.isArray(value.L)) return { L: (value.L as JsonAttribute[]).map(decode) };
  // S, N, BOOL, NULL, SS and NS are JSON as they are.
  return value as unknown as AttributeValue;
}
