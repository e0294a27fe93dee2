/**
 * The single-table design. Every item has `PK`/`SK`; `GSI1` serves the few
 * secondary look-ups, `GSI2` the sync schedule; `expires_at` (epoch seconds)
 * is the TTL attribute.
 *
 * | item             | PK                         | SK              | GSI1PK      | GSI1SK         |
 * |------------------|----------------------------|-----------------|-------------|----------------|
 * | organization     | ORG#<org>                  | META            |             |                |
 * | agent            | ORG#<org>                  | AGENT#<agt>     |             |                |
 * | data source      | ORG#<org>                  | DS#<ds>         |             |                |
 * | uploaded file    | ORG#<org>                  | FILE#<ds>#<doc> |             |                |
 * | API key          | APIKEY#<sha256>            | META            | ORG#<org>   | APIKEY#<key>   |
 * | scope bucket     | RATE#<key>#<scope>         | GCRA            |             |                |
 * | plan window      | PLAN#<org>#m#<minute>      | COUNT           |             |                |
 * | plan day         | PLAN#<org>#d#<YYYY-MM-DD>  | COUNT           |             |                |
 * | plan leases      | PLAN#<org>#c               | LEASES          |             |                |
 * | webhook          | ORG#<org>                  | WEBHOOK#<wh>    |             |                |
 * | model key        | ORG#<org>                  | MODELKEY#<mk>   |             |                |
 * | evaluation       | ORG#<org>                  | EVAL#<eval>     |             |                |
 * | eval question    | ORG#<org>                  | EVALQ#<eval>#<n>|             |                |
 * | delivery         | ORG#<org>                  | WHDLV#<wh>#<dlv>|             |                |
 * | user             | ORG#<org>                  | USER#<usr>      |             |                |
 * | group            | ORG#<org>                  | GROUP#<grp>     |             |                |
 * | email claim      | USEREMAIL#<email>          | ORG#<org>       |             |                |
 * | invitation       | INVITE#<sha256>            | META            |             |                |
 * | password reset   | PWDRESET#<sha256>          | META            |             |                |
 * | revoked session  | SESSION#<sess>             | REVOKED         |             |                |
 * | password cutoff  | PWDCUTOFF#ORG#<org>        | CUTOFF          |             |                |
 * | password cutoff  | PWDCUTOFF#DOM#<dom>        | CUTOFF          |             |                |
 * | SSO configuration| ORG#<org>                  | SSO#CONFIG      |             |                |
 * | SSO domain       | ORG#<org>                  | SSODOMAIN#<dom> |             |                |
 * | domain claim     | SSODOMAIN#<dom>            | CLAIM           |             |                |
 * | SSO sign-in flow | SSOFLOW#<state or req id>  | FLOW            |             |                |
 * | SAML assertion   | SAMLASSERTION#<sha256>     | SEEN            |             |                |
 * | (pending events) | (any org-partition item)   |                 | OUTBOX#<n>  | <first evt id> |
 *
 * `GSI2` is sparse too: only data sources synced on a schedule carry
 * its keys (a change to `manual` removes them), and it projects only what the
 * scheduler reads (`org_id`, `id`, `sync_frequency`, `next_sync_at`).
 *
 * | item             | GSI2PK        | GSI2SK                        |
 * |------------------|---------------|-------------------------------|
 * | scheduled source | SCHEDULE#<n>  | <next_sync_at>#<org>#<ds>     |
 * | domain claim     | SSODOMAINCHECK| <next_check_at>#<dom>         |
 *
 * Verified domains' claims sit in GSI2 too, so the same tick finds
 * the ones due for their daily re-check (the org id is projected; the
 * domain is the claim's key).
 *
 * Everything an organization owns lives under its partition, so every read
 * is a key lookup or a query on that partition (never a scan), and every
 * write touches one item (atomic without transactions; dynalite has none).
 */
export const TABLE_KEYS = {
  partitionKey: 'PK',
  sortKey: 'SK',
  gsi1: { indexName: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK' },
  gsi2: {
    indexName: 'GSI2',
    partitionKey: 'GSI2PK',
    sortKey: 'GSI2SK',
    /** What the scheduler reads from the index: enough to find the item and advance it. */
    projectedAttributes: ['org_id', 'id', 'sync_frequency', 'next_sync_at'],
  },
  ttlAttribute: 'expires_at',
} as const;

export const keys = {
  organization: (orgId: string) => ({ PK: `ORG#${orgId}`, SK: 'META' }),
  agentPrefix: 'AGENT#',
  dataSource: (orgId: string, id: string) => ({ PK: `ORG#${orgId}`, SK: `DS#${id}` }),
  dataSourcePrefix: 'DS#',
  uploadedFilePrefix: (dataSourceId: string) => `FILE#${dataSourceId}#`,
  orgPartition: (orgId: string) => `ORG#${orgId}`,
  apiKey: (hash: string) => ({ PK: `APIKEY#${hash}`, SK: 'META' }),
  apiKeyIndex: (orgId: string, keyId: string) => ({
    GSI1PK: `ORG#${orgId}`,
    GSI1SK: `APIKEY#${keyId}`,
  }),
  scopeBucket: (bucketId: string) => ({ PK: `RATE#${bucketId}`, SK: 'GCRA' }),
  planWindow: (orgId: string, minute: number) => ({ PK: `PLAN#${orgId}#m#${minute}`, SK: 'COUNT' }),
  /** requests/day and tokens/day: one counter item per organization and UTC day. */
  planDay: (orgId: string, date: string) => ({ PK: `PLAN#${orgId}#d#${date}`, SK: 'COUNT' }),
  /** Concurrent requests: the organization's leases, one item. */
  planLeases: (orgId: string) => ({ PK: `PLAN#${orgId}#c`, SK: 'LEASES' }),
  webhookPrefix: 'WEBHOOK#',
  /** A knowledge-base article (its latest version), and each recorded version. */
  kbArticle: (orgId: string, id: string) => ({ PK: `ORG#${orgId}`, SK: `KB#${id}` }),
  kbArticlePrefix: 'KB#',
  kbVersion: (orgId: string, articleId: string, version: number) => ({
    PK: `ORG#${orgId}`,
    SK: `KBV#${articleId}#${String(version).padStart(10, '0')}`,
  }),
  kbVersionPrefix: (articleId: string) => `KBV#${articleId}#`,
  /** An organization's model key, its sealed key a storage attribute. */
  modelKeyPrefix: 'MODELKEY#',
  /** Issue 11 item 5: an evaluation run, and each of its questions by position. */
  evaluationPrefix: 'EVAL#',
  evaluationQuestion: (orgId: string, evalId: string, index: number) => ({
    PK: `ORG#${orgId}`,
    SK: `EVALQ#${evalId}#${String(index).padStart(5, '0')}`,
  }),
  evaluationQuestionPrefix: (evalId: string) => `EVALQ#${evalId}#`,
  userPrefix: 'USER#',
  /** A group (issue 9 item 5); its members are the users whose `group_ids` hold it. */
  groupPrefix: 'GROUP#',
  group: (orgId: string, id: string) => ({ PK: `ORG#${orgId}`, SK: `GROUP#${id}` }),
  /**
   * One item per (normalized email, organization) claims the email for
   * one user; the partition lists an email's users in every organization,
   * which is what a sign-in by email looks up.
   */
  userEmail: (normalizedEmail: string, orgId: string) => ({
    PK: `USEREMAIL#${normalizedEmail}`,
    SK: `ORG#${orgId}`,
  }),
  userEmailPartition: (normalizedEmail: string) => `USEREMAIL#${normalizedEmail}`,
  /** An invitation, found by its token's hash. */
  invitation: (tokenHash: string) => ({ PK: `INVITE#${tokenHash}`, SK: 'META' }),
  /** A password reset waiting to be used, found by its token's hash. */
  passwordReset: (tokenHash: string) => ({ PK: `PWDRESET#${tokenHash}`, SK: 'META' }),
  /** A session revoked before its tokens expire. */
  revokedSession: (sessionId: string) => ({ PK: `SESSION#${sessionId}`, SK: 'REVOKED' }),
  /** Since when an organization's users' password sessions count (`enforce_sso`). */
  organizationPasswordCutoff: (orgId: string) => ({ PK: `PWDCUTOFF#ORG#${orgId}`, SK: 'CUTOFF' }),
  /** Since when password sessions of a domain's emails count, in any organization. */
  domainPasswordCutoff: (domain: string) => ({ PK: `PWDCUTOFF#DOM#${domain}`, SK: 'CUTOFF' }),
  /** An organization's SSO configuration. */
  ssoConfiguration: (orgId: string) => ({ PK: `ORG#${orgId}`, SK: 'SSO#CONFIG' }),
  ssoDomain: (orgId: string, domain: string) => ({ PK: `ORG#${orgId}`, SK: `SSODOMAIN#${domain}` }),
  ssoDomainPrefix: 'SSODOMAIN#',
  /** A verified domain belongs to one organization: this item says which. */
  domainClaim: (domain: string) => ({ PK: `SSODOMAIN#${domain}`, SK: 'CLAIM' }),
  /** A sign-in between leaving for the identity provider and coming back (TTL). */
  ssoFlow: (id: string) => ({ PK: `SSOFLOW#${id}`, SK: 'FLOW' }),
  /** A SAML assertion already accepted, by the hash of its issuer and id (TTL). */
  samlAssertion: (hash: string) => ({ PK: `SAMLASSERTION#${hash}`, SK: 'SEEN' }),
  deliveryPrefix: (webhookId: string) => `WHDLV#${webhookId}#`,
  /** Items with unpublished events sit in one of these sparse GSI1 partitions (spread to avoid one hot key). */
  outboxPartition: (shard: number) => `OUTBOX#${shard}`,
  outboxShards: 4,
  /** Scheduled data sources sit in one of these sparse GSI2 partitions, spread like the outbox's. */
  schedulePartition: (shard: number) => `SCHEDULE#${shard}`,
  scheduleShards: 4,
  /**
   * GSI2SK: the due time first, so `GSI2SK <= scheduleDueBound(now)` finds
   * what is due; organization and id after it keep equal times apart and in a
   * stable order.
   */
  scheduleSortKey: (nextSyncAt: string, orgId: string, id: string) =>
    `${nextSyncAt}#${orgId}#${id}`,
  /** Verified domains' claims, in GSI2 by the time of their next re-check. */
  domainCheckPartition: 'SSODOMAINCHECK',
  domainCheckSortKey: (nextCheckAt: string, domain: string) => `${nextCheckAt}#${domain}`,
  /** Above every GSI2SK whose time is `now` or earlier: `~` sorts after any id character. */
  scheduleDueBound: (now: string) => `${now}#~`,
} as const;

/** Attributes that belong to the storage, not to the entity. */
const STORAGE_ATTRIBUTES = [
  'PK',
  'SK',
  'GSI1PK',
  'GSI1SK',
  'GSI2PK',
  'GSI2SK',
  'entity',
  'org_id',
  'expires_at',
  'item_version',
  'outbox',
  'deleted_at',
  'secrets',
  // Connector data sources: the sealed grant, the pending sign-in, the sync cursor.
  'oauth_tokens',
  'oauth_flow',
  'sync_cursor',
  // A model key's sealed key.
  'sealed_key',
  // Who started an evaluation run.
  'asker',
];

export function withoutStorageAttributes(item: Record<string, unknown>): Record<string, unknown> {
  const entity = { ...item };
  for (const name of STORAGE_ATTRIBUTES) delete entity[name];
  return entity;
}
