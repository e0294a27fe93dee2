/**
 * The single-table design. Every item has `PK`/`SK`; `GSI1` serves the few
 * secondary look-ups; `expires_at` (epoch seconds) is the TTL attribute.
 *
 * | item             | PK                         | SK              | GSI1PK      | GSI1SK         |
 * |------------------|----------------------------|-----------------|-------------|----------------|
 * | organization     | ORG#<org>                  | META            |             |                |
 * | agent            | ORG#<org>                  | AGENT#<agt>     |             |                |
 * | data source      | ORG#<org>                  | DS#<ds>         |             |                |
 * | API key          | APIKEY#<sha256>            | META            | ORG#<org>   | APIKEY#<key>   |
 * | scope bucket     | RATE#<key>#<scope>         | GCRA            |             |                |
 * | plan window      | PLAN#<org>#m#<minute>      | COUNT           |             |                |
 * | webhook          | ORG#<org>                  | WEBHOOK#<wh>    |             |                |
 * | delivery         | ORG#<org>                  | WHDLV#<wh>#<dlv>|             |                |
 * | (pending events) | (any org-partition item)   |                 | OUTBOX#<n>  | <first evt id> |
 *
 * Everything an organization owns lives under its partition, so every read
 * is a key lookup or a query on that partition (never a scan), and every
 * write touches one item (atomic without transactions; dynalite has none).
 */
export const TABLE_KEYS = {
  partitionKey: 'PK',
  sortKey: 'SK',
  gsi1: { indexName: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK' },
  ttlAttribute: 'expires_at',
} as const;

export const keys = {
  organization: (orgId: string) => ({ PK: `ORG#${orgId}`, SK: 'META' }),
  agentPrefix: 'AGENT#',
  dataSource: (orgId: string, id: string) => ({ PK: `ORG#${orgId}`, SK: `DS#${id}` }),
  dataSourcePrefix: 'DS#',
  orgPartition: (orgId: string) => `ORG#${orgId}`,
  apiKey: (hash: string) => ({ PK: `APIKEY#${hash}`, SK: 'META' }),
  apiKeyIndex: (orgId: string, keyId: string) => ({
    GSI1PK: `ORG#${orgId}`,
    GSI1SK: `APIKEY#${keyId}`,
  }),
  scopeBucket: (bucketId: string) => ({ PK: `RATE#${bucketId}`, SK: 'GCRA' }),
  planWindow: (orgId: string, minute: number) => ({ PK: `PLAN#${orgId}#m#${minute}`, SK: 'COUNT' }),
  webhookPrefix: 'WEBHOOK#',
  deliveryPrefix: (webhookId: string) => `WHDLV#${webhookId}#`,
  /** Items with unpublished events sit in one of these sparse GSI1 partitions (spread to avoid one hot key). */
  outboxPartition: (shard: number) => `OUTBOX#${shard}`,
  outboxShards: 4,
} as const;

/** Attributes that belong to the storage, not to the entity. */
const STORAGE_ATTRIBUTES = [
  'PK',
  'SK',
  'GSI1PK',
  'GSI1SK',
  'entity',
  'org_id',
  'expires_at',
  'item_version',
  'outbox',
  'deleted_at',
  'secrets',
];

export function withoutStorageAttributes(item: Record<string, unknown>): Record<string, unknown> {
  const entity = { ...item };
  for (const name of STORAGE_ATTRIBUTES) delete entity[name];
  return entity;
}
