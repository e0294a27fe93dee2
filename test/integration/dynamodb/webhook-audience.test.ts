import { DynamoDbGroupRepository } from '../../../layers/core/adapters/dynamodb/group-repository';
import { DynamoDbUserRepository } from '../../../layers/core/adapters/dynamodb/user-repository';
import { ALL_AGENTS } from '../../../layers/core/domain/agent-access';
import type { Group } from '../../../layers/core/domain/group';
import { newId } from '../../../layers/core/domain/ids';
import type { User } from '../../../layers/core/domain/user';
import type { GroupGrants } from '../../../layers/core/ports/group-repository.port';
import type { UserRepository } from '../../../layers/core/ports/user-repository.port';
import { audienceOf, audiences } from '../../../layers/core/use-cases/webhooks/webhook-audience';
import { startTestTables, type TestTables } from '../../support/dynalite';

const at = '2026-11-21T10:00:00.000Z';
const ORG = 'org_audience';

/**
 * P217, P218: a webhook owner's access read from the table as a session
 * check reads it (the user, their groups' grants), and read once per owner
 * for an outbox batch.
 */
describe("A webhook owner's access (dynalite)", () => {
  let tables: TestTables;
  let users: DynamoDbUserRepository;
  let groups: DynamoDbGroupRepository;
  let reads: { users: number; grants: number };
  let deps: {
    users: Pick<UserRepository, 'getWithGroups'>;
    groupGrants: GroupGrants;
  };

  async function userIn(groupIds: string[], overrides: Partial<User> = {}): Promise<User> {
    const user: User = {
      id: newId('user'),
      email: `${newId('user')}@example.com`,
      name: 'Ada',
      role: 'configure',
      status: 'active',
      created_at: at,
      updated_at: at,
      last_login_at: null,
      ...overrides,
    };
    await users.create(ORG, user, { events: [], now: Date.parse(at) });
    for (const groupId of groupIds) await users.addGroup(ORG, user.id, groupId, 100);
    return user;
  }
  async function groupOf(agentIds: string[] | null): Promise<string> {
    const group: Group = {
      id: newId('group'),
      name: 'Help desk',
      description: null,
      role: 'readonly',
      agent_ids: agentIds,
      created_at: at,
      updated_at: at,
    };
    await groups.create(ORG, group);
    return group.id;
  }

  beforeAll(async () => {
    tables = await startTestTables();
    users = new DynamoDbUserRepository(tables.client, tables.tableName);
    groups = new DynamoDbGroupRepository(tables.client, tables.tableName);
  });
  beforeEach(() => {
    reads = { users: 0, grants: 0 };
    // The real repositories, counted.
    deps = {
      users: {
        getWithGroups: (orgId, id) => {
          reads.users += 1;
          return users.getWithGroups(orgId, id);
        },
      },
      groupGrants: {
        grants: (orgId, ids) => {
          reads.grants += 1;
          return groups.grants(orgId, ids);
        },
      },
    };
  });
  afterAll(() => tables.end());

  it('gives a user the agents their groups allow now, with their effective role', async () => {
    const helpDesk = await groupOf(['agt_help']);
    const member = await userIn([helpDesk]);
    const outsider = await userIn([]);

    const restricted = await audienceOf(deps, ORG, { type: 'user', id: member.id });
    const open = await audienceOf(deps, ORG, { type: 'user', id: outsider.id });

    expect(restricted).toEqual({
      kind: 'user',
      role: 'configure',
      agents: { kind: 'only', agentIds: new Set(['agt_help']) },
    });
    expect(open).toEqual({ kind: 'user', role: 'configure', agents: ALL_AGENTS });
  });

  it('reads nothing for an API key or a webhook without an owner', async () => {
    const key = await audienceOf(deps, ORG, { type: 'api_key', id: 'key_01' });
    const legacy = await audienceOf(deps, ORG, null);

    expect(key).toEqual({ kind: 'organization' });
    expect(legacy).toEqual({ kind: 'nobody' });
    expect(reads).toEqual({ users: 0, grants: 0 });
  });

  it('is nobody for a deactivated user, an invited one, a user gone, or one of another organization', async () => {
    const deactivated = await userIn([], { status: 'deactivated', role: 'admin' });
    const invited = await userIn([], { status: 'invited' });

    const seen = await Promise.all(
      [deactivated.id, invited.id, newId('user')].map((id) =>
        audienceOf(deps, ORG, { type: 'user', id }),
      ),
    );
    const elsewhere = await audienceOf(deps, 'org_other', {
      type: 'user',
      id: (await userIn([])).id,
    });

    expect([...seen, elsewhere].map((audience) => audience.kind)).toEqual([
      'nobody',
      'nobody',
      'nobody',
      'nobody',
    ]);
  });

  it('reads each owner once for a batch, however many webhooks and events ask', async () => {
    const helpDesk = await groupOf(['agt_help']);
    const [first, second] = [await userIn([helpDesk]), await userIn([helpDesk])];
    const audienceFor = audiences(deps, ORG);

    const seen = await Promise.all(
      [first, second, first, first, second].map((user) =>
        audienceFor({ type: 'user', id: user.id }),
      ),
    );
    await audienceFor({ type: 'api_key', id: 'key_01' });

    expect(seen.every((audience) => audience.kind === 'user')).toBe(true);
    expect(reads).toEqual({ users: 2, grants: 2 });
  });
});
