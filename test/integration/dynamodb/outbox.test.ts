import { DynamoDbAgentRepository } from '../../../layers/core/adapters/dynamodb/agent-repository';
import { DynamoDbOutbox } from '../../../layers/core/adapters/dynamodb/outbox';
import type { Agent } from '../../../layers/core/domain/agent';
import { newId } from '../../../layers/core/domain/ids';
import {
  agentCreated,
  agentDeleted,
  agentUpdated,
} from '../../../layers/core/use-cases/events/domain-events';
import { startTestTables, type TestTables } from '../../support/dynalite';

const now = new Date('2026-11-21T10:00:00.000Z');

function agent(): Agent {
  return {
    id: newId('agent'),
    name: 'Helper',
    system_prompt: null,
    rag_strategy: 'hybrid',
    model: 'offline-extractive',
    temperature: 0.2,
    max_tokens: 1024,
    data_source_ids: [],
    model_key_id: null,
    status: 'active',
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  };
}

describe('Outbox in the items (dynalite)', () => {
  let tables: TestTables;
  let agents: DynamoDbAgentRepository;
  let outbox: DynamoDbOutbox;
  beforeEach(async () => {
    tables = await startTestTables();
    agents = new DynamoDbAgentRepository(tables.client, tables.tableName);
    outbox = new DynamoDbOutbox(tables.client, tables.tableName);
  });
  afterEach(() => tables.end());

  it('stores the event in the same write as the change, and nothing when the write is refused', async () => {
    // Prepare
    const created = agent();
    const event = agentCreated('org_a', created, now);

    // Act
    await agents.create('org_a', created, [event]);
    const duplicate = agents.create('org_a', created, [agentCreated('org_a', created, now)]);

    // Assess
    await expect(duplicate).rejects.toThrow();
    const pending = await outbox.pending(10);
    expect(pending).toHaveLength(1);
    expect(pending[0]).toMatchObject({ orgId: 'org_a', events: [event] });
    expect(await agents.get('org_a', created.id)).toEqual(created);
  });

  it('refuses an update at a stale version, with its event', async () => {
    const created = agent();
    await agents.create('org_a', created, []);
    const stale = await agents.update(
      'org_a',
      created.id,
      { name: 'B', updated_at: now.toISOString() },
      { expectedVersion: 7, events: [agentUpdated('org_a', created, {}, now)] },
    );
    expect(stale).toBeNull();
    expect(await outbox.pending(10)).toEqual([]);
  });

  it('appends events of later writes, and clears only what was published', async () => {
    // Prepare: a create and an update, both pending
    const created = agent();
    await agents.create('org_a', created, [agentCreated('org_a', created, now)]);
    const [first] = await outbox.pending(10);
    await agents.update(
      'org_a',
      created.id,
      { name: 'B', updated_at: now.toISOString() },
      { expectedVersion: 1, events: [agentUpdated('org_a', { ...created, name: 'B' }, {}, now)] },
    );

    // Act: the publisher clears the batch it read before the update
    if (!first) throw new Error('expected a pending batch');
    await outbox.markPublished(first);

    // Assess: both events are still pending (the batch changed), none lost
    const [remaining] = await outbox.pending(10);
    expect(remaining?.events.map((event) => event.type)).toEqual([
      'agent.created',
      'agent.updated',
    ]);
    if (!remaining) throw new Error('expected a pending batch');
    await outbox.markPublished(remaining);
    expect(await outbox.pending(10)).toEqual([]);
    expect((await agents.get('org_a', created.id))?.name).toBe('B');
  });

  it('keeps a deleted agent as an invisible tombstone until its event is published', async () => {
    const created = agent();
    await agents.create('org_a', created, []);

    expect(await agents.delete('org_a', created.id, [agentDeleted('org_a', created.id, now)])).toBe(
      true,
    );

    expect(await agents.get('org_a', created.id)).toBeNull();
    expect((await agents.list('org_a', { limit: 50, offset: 0 })).total).toBe(0);
    expect(await agents.delete('org_a', created.id, [])).toBe(false);
    const [tombstone] = await outbox.pending(10);
    expect(tombstone?.events.map((event) => event.type)).toEqual(['agent.deleted']);
    if (!tombstone) throw new Error('expected a pending batch');
    await outbox.markPublished(tombstone);
    expect(await outbox.pending(10)).toEqual([]);
    // The id is free again only in the sense that nothing of it remains.
    expect(await agents.get('org_a', created.id)).toBeNull();
  });
});

describe('Versioned updates of items written before versions existed', () => {
  it('treats an item without item_version as version 0', async () => {
    // Prepare: an agent as the foundation release stored it (no item_version)
    const tables = await startTestTables();
    try {
      const { PutCommand } = await import('@aws-sdk/lib-dynamodb');
      const legacy = agent();
      await tables.client.send(
        new PutCommand({
          TableName: tables.tableName,
          Item: {
            PK: 'ORG#org_a',
            SK: `AGENT#${legacy.id}`,
            entity: 'agent',
            org_id: 'org_a',
            ...legacy,
          },
        }),
      );
      const agents = new DynamoDbAgentRepository(tables.client, tables.tableName);

      // Act
      const read = await agents.getVersioned('org_a', legacy.id);
      const updated = await agents.update(
        'org_a',
        legacy.id,
        { name: 'Renamed', updated_at: now.toISOString() },
        { expectedVersion: read?.version ?? -1, events: [] },
      );

      // Assess
      expect(read?.version).toBe(0);
      expect(updated?.name).toBe('Renamed');
      expect((await agents.getVersioned('org_a', legacy.id))?.version).toBe(1);
    } finally {
      await tables.end();
    }
  });
});
