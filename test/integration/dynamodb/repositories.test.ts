import { DynamoDbAgentRepository } from '../../../layers/core/adapters/dynamodb/agent-repository';
import { DynamoDbApiKeyRepository } from '../../../layers/core/adapters/dynamodb/api-key-repository';
import { DynamoDbDataSourceRepository } from '../../../layers/core/adapters/dynamodb/data-source-repository';
import { DynamoDbOrganizationRepository } from '../../../layers/core/adapters/dynamodb/organization-repository';
import type { Agent } from '../../../layers/core/domain/agent';
import type { DataSource } from '../../../layers/core/domain/data-source';
import { newSyncJob } from '../../../layers/core/domain/data-source';
import { newId } from '../../../layers/core/domain/ids';
import { startTestTables, type TestTables } from '../../support/dynalite';

const at = '2026-11-21T10:00:00.000Z';

function dataSource(): DataSource {
  return {
    id: newId('dataSource'),
    type: 'website',
    name: 'Docs',
    config: { url: 'https://example.com', max_pages: 10 },
    sync_frequency: 'manual',
    next_sync_at: null,
    status: 'pending',
    chunks_indexed: 0,
    created_at: at,
    updated_at: at,
    current_job: null,
    last_job: null,
  };
}

function agent(dataSourceIds: string[]): Agent {
  return {
    id: newId('agent'),
    name: 'Helper',
    system_prompt: null,
    rag_strategy: 'hybrid',
    model: 'offline-extractive',
    temperature: 0.2,
    max_tokens: 1024,
    data_source_ids: dataSourceIds,
    model_key_id: null,
    status: 'active',
    created_at: at,
    updated_at: at,
  };
}

describe('DynamoDB repositories (dynalite)', () => {
  let tables: TestTables;
  let agents: DynamoDbAgentRepository;
  let sources: DynamoDbDataSourceRepository;
  let keys: DynamoDbApiKeyRepository;
  beforeAll(async () => {
    tables = await startTestTables();
    agents = new DynamoDbAgentRepository(tables.client, tables.tableName);
    sources = new DynamoDbDataSourceRepository(tables.client, tables.tableName);
    keys = new DynamoDbApiKeyRepository(tables.client, tables.tableName);
  });
  afterAll(() => tables.end());

  it('scopes every agent read and write by organization', async () => {
    const mine = agent([]);
    await agents.create('org_a', mine, []);
    expect(await agents.get('org_a', mine.id)).toEqual(mine);
    expect(await agents.get('org_b', mine.id)).toBeNull();
    expect(
      await agents.update(
        'org_b',
        mine.id,
        { name: 'x', updated_at: at },
        { expectedVersion: 1, events: [] },
      ),
    ).toBeNull();
    expect(await agents.delete('org_b', mine.id, [])).toBe(false);
    expect((await agents.list('org_b', { limit: 50, offset: 0 })).total).toBe(0);
    expect(await agents.get('org_a', mine.id)).toEqual(mine);
  });

  it('pages newest first with the total', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      const created = agent([]);
      ids.push(created.id);
      await agents.create('org_pages', created, []);
    }
    const page = await agents.list('org_pages', { limit: 2, offset: 1 });
    expect(page.total).toBe(5);
    expect(page.items.map((item) => item.id)).toEqual([ids[3], ids[2]]);
  });

  it('finds the agents that use a data source', async () => {
    const source = dataSource();
    await sources.create('org_ref', source, []);
    const user = agent([source.id]);
    await agents.create('org_ref', user, []);
    await agents.create('org_ref', agent([]), []);
    expect(await agents.idsReferencing('org_ref', source.id)).toEqual([user.id]);
    expect(await sources.existingIds('org_ref', [source.id, newId('dataSource')])).toEqual(
      new Set([source.id]),
    );
    expect(await sources.existingIds('org_other', [source.id])).toEqual(new Set());
  });

  it('lets exactly one of many simultaneous sync requests create the job (D22)', async () => {
    // Prepare
    const source = dataSource();
    await sources.create('org_sync', source, []);

    // Act
    const claims = await Promise.all(
      Array.from({ length: 12 }, () =>
        sources.claimSyncJob('org_sync', source.id, newSyncJob(newId('syncJob'), at)),
      ),
    );

    // Assess
    expect(claims.filter((claim) => claim?.created)).toHaveLength(1);
    expect(new Set(claims.map((claim) => claim?.job.id)).size).toBe(1);
    expect((await sources.get('org_sync', source.id))?.current_job?.id).toBe(claims[0]?.job.id);
    expect(
      await sources.claimSyncJob('org_other', source.id, newSyncJob(newId('syncJob'), at)),
    ).toBeNull();
  });

  it('filters data sources by status', async () => {
    await sources.create('org_status', dataSource(), []);
    expect(
      (await sources.list('org_status', { status: 'pending' }, { limit: 50, offset: 0 })).total,
    ).toBe(1);
    expect(
      (await sources.list('org_status', { status: 'active' }, { limit: 50, offset: 0 })).total,
    ).toBe(0);
  });

  it('finds a key by hash, lists it by organization and revokes it only there', async () => {
    const record = {
      id: newId('apiKey'),
      org_id: 'org_keys',
      name: 'ci',
      scopes: ['Read' as const],
      environment: 'test' as const,
      last4: 'abcd',
      created_at: at,
      last_used_at: null,
    };
    await keys.create(record, 'f'.repeat(64));
    expect(await keys.findByHash('f'.repeat(64))).toEqual(record);
    expect(await keys.listByOrganization('org_keys')).toEqual([record]);
    expect(await keys.revoke('org_other', record.id)).toBe(false);
    expect(await keys.revoke('org_keys', record.id)).toBe(true);
    expect(await keys.findByHash('f'.repeat(64))).toBeNull();
  });

  it('stamps last_used_at once per interval and never brings a revoked key back (P75)', async () => {
    const hash = 'e'.repeat(64);
    const record = {
      id: newId('apiKey'),
      org_id: 'org_used',
      name: 'script',
      scopes: ['Read' as const],
      environment: 'test' as const,
      last4: 'wxyz',
      created_at: at,
      last_used_at: null,
    };
    await keys.create(record, hash);

    await keys.recordUse(hash, '2026-11-21T10:01:00.000Z', '2026-11-21T10:00:00.000Z');
    await keys.recordUse(hash, '2026-11-21T10:01:30.000Z', '2026-11-21T10:00:30.000Z');
    const stamped = await keys.findByHash(hash);
    await keys.recordUse(hash, '2026-11-21T10:02:30.000Z', '2026-11-21T10:01:30.000Z');
    const later = await keys.findByHash(hash);
    await keys.revoke('org_used', record.id);
    await keys.recordUse('e'.repeat(64), '2026-11-21T10:09:00.000Z', '2026-11-21T10:08:00.000Z');

    expect(stamped?.last_used_at).toBe('2026-11-21T10:01:00.000Z');
    expect(later?.last_used_at).toBe('2026-11-21T10:02:30.000Z');
    expect(await keys.findByHash(hash)).toBeNull();
  });

  it('updates only the organization that exists, only the fields given (P74)', async () => {
    const organizations = new DynamoDbOrganizationRepository(tables.client, tables.tableName);
    const id = newId('organization');
    await organizations.create({ id, name: 'Acme', plan: 'pro', created_at: at });

    const renamed = await organizations.update(id, { name: 'Acme Labs', updated_at: at });
    const fenced = await organizations.update(id, {
      settings: { ip_allowlist: ['203.0.113.0/24'] },
      updated_at: at,
    });
    const missing = await organizations.update(newId('organization'), {
      name: 'Ghost',
      updated_at: at,
    });

    expect(renamed).toEqual({ id, name: 'Acme Labs', plan: 'pro', created_at: at, updated_at: at });
    expect(fenced).toMatchObject({
      name: 'Acme Labs',
      settings: { ip_allowlist: ['203.0.113.0/24'] },
    });
    expect(missing).toBeNull();
    expect(await organizations.get(id)).toEqual(fenced);
  });
});
