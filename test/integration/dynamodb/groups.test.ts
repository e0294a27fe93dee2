import { DynamoDbGroupRepository } from '../../../layers/core/adapters/dynamodb/group-repository';
import { DynamoDbUserRepository } from '../../../layers/core/adapters/dynamodb/user-repository';
import type { Group } from '../../../layers/core/domain/group';
import { newId } from '../../../layers/core/domain/ids';
import type { User } from '../../../layers/core/domain/user';
import { startTestTables, type TestTables } from '../../support/dynalite';

const at = '2026-11-21T10:00:00.000Z';
const now = Date.parse(at);

function user(overrides: Partial<User> = {}): User {
  return {
    id: newId('user'),
    email: `${newId('user')}@example.com`,
    name: 'Ada',
    role: 'readonly',
    status: 'active',
    created_at: at,
    updated_at: at,
    last_login_at: null,
    ...overrides,
  };
}

function group(overrides: Partial<Group> = {}): Group {
  return {
    id: newId('group'),
    name: 'Support',
    description: null,
    role: 'train',
    agent_ids: null,
    created_at: at,
    updated_at: at,
    ...overrides,
  };
}

describe('Groups and memberships (dynalite, P83)', () => {
  let tables: TestTables;
  let users: DynamoDbUserRepository;
  let groups: DynamoDbGroupRepository;
  beforeAll(async () => {
    tables = await startTestTables();
    users = new DynamoDbUserRepository(tables.client, tables.tableName);
    groups = new DynamoDbGroupRepository(tables.client, tables.tableName);
  });
  afterAll(() => tables.end());

  it('reads the grants of existing groups of the organization only, in one call', async () => {
    const open = group({ role: 'admin' });
    const narrow = group({ agent_ids: ['agt_a', 'agt_b'] });
    const elsewhere = group();
    await groups.create('org_a', open);
    await groups.create('org_a', narrow);
    await groups.create('org_b', elsewhere);

    const grants = await groups.grants('org_a', [open.id, narrow.id, elsewhere.id, newId('group')]);

    expect(grants).toEqual(
      [
        { id: open.id, role: 'admin', agent_ids: null },
        { id: narrow.id, role: 'train', agent_ids: ['agt_a', 'agt_b'] },
      ].sort((a, b) => a.id.localeCompare(b.id)),
    );
    expect(await groups.grants('org_a', [])).toEqual([]);
  });

  it('keeps memberships on the user, never changing its fields or version', async () => {
    const ada = user();
    await users.create('org_a', ada, { events: [], now });
    const before = await users.getWithCredentials('org_a', ada.id);
    const first = newId('group');
    const second = newId('group');

    expect(await users.addGroup('org_a', ada.id, first, 100)).toBeUndefined();
    expect(await users.addGroup('org_a', ada.id, second, 100)).toBeUndefined();
    expect(await users.addGroup('org_a', ada.id, first, 100)).toBeUndefined();
    const withGroups = await users.getWithGroups('org_a', ada.id);
    const listed = await users.listByGroup('org_a', first);
    const removed = await users.removeGroup('org_a', ada.id, first);
    const removedAgain = await users.removeGroup('org_a', ada.id, first);

    expect(withGroups).toEqual({
      user: ada,
      groupIds: [first, second].sort(),
      sessionsValidFrom: null,
    });
    expect(listed).toEqual([ada]);
    expect(removed).toBe(true);
    expect(removedAgain).toBe(false);
    expect((await users.getWithGroups('org_a', ada.id))?.groupIds).toEqual([second]);
    expect((await users.getWithCredentials('org_a', ada.id))?.version).toBe(before?.version);
    expect(await users.addGroup('org_b', ada.id, first, 100)).toBe('no_user');
  });

  it('holds the per-user bound under concurrent joins: exactly the bound succeed', async () => {
    const grace = user();
    await users.create('org_a', grace, { events: [], now });
    const ids = Array.from({ length: 12 }, () => newId('group'));

    const outcomes = await Promise.all(ids.map((id) => users.addGroup('org_a', grace.id, id, 5)));

    expect(outcomes.filter((outcome) => outcome === undefined)).toHaveLength(5);
    expect(outcomes.filter((outcome) => outcome === 'too_many_groups')).toHaveLength(7);
    expect((await users.getWithGroups('org_a', grace.id))?.groupIds).toHaveLength(5);
  });
});
