import { PutCommand } from '@aws-sdk/lib-dynamodb';
import {
  DynamoDbPasswordSessionCutoffs,
  PASSWORD_CUTOFF_CACHE_MS,
} from '../../../layers/core/adapters/dynamodb/password-session-cutoffs';
import { DynamoDbSessionRevocations } from '../../../layers/core/adapters/dynamodb/session-revocations';
import { keys } from '../../../layers/core/adapters/dynamodb/table-design';
import {
  DynamoDbUserRepository,
  ORPHAN_CLAIM_GRACE_MS,
} from '../../../layers/core/adapters/dynamodb/user-repository';
import { newId } from '../../../layers/core/domain/ids';
import type { User } from '../../../layers/core/domain/user';
import { startTestTables, type TestTables } from '../../support/dynalite';

const at = '2026-11-21T10:00:00.000Z';
const now = Date.parse(at);

function user(email: string, overrides: Partial<User> = {}): User {
  return {
    id: newId('user'),
    email,
    name: 'Ada',
    role: 'readonly',
    status: 'active',
    created_at: at,
    updated_at: at,
    last_login_at: null,
    ...overrides,
  };
}

describe('DynamoDbUserRepository (dynalite)', () => {
  let tables: TestTables;
  let users: DynamoDbUserRepository;
  beforeAll(async () => {
    tables = await startTestTables();
    users = new DynamoDbUserRepository(tables.client, tables.tableName);
  });
  afterAll(() => tables.end());

  it('creates a user, returning none of what is stored beside it', async () => {
    const ada = user('Ada@Example.com');
    await users.create('org_a', ada, { passwordHash: 'scrypt$x', events: [], now });

    expect(await users.get('org_a', ada.id)).toEqual(ada);
    expect(await users.get('org_b', ada.id)).toBeNull();
    const stored = await users.getWithCredentials('org_a', ada.id);
    expect(stored?.credentials).toEqual({ passwordHash: 'scrypt$x', invitation: null });
    expect((await users.list('org_a', { limit: 50, offset: 0 })).items).toEqual([ada]);
  });

  it('refuses a second user with the same email in one organization, whatever its case (P60)', async () => {
    await users.create('org_c', user('grace@example.com'), { events: [], now });

    const again = await users.create('org_c', user('  GRACE@Example.COM '), { events: [], now });

    expect(again).toBe('email_taken');
    expect((await users.list('org_c', { limit: 50, offset: 0 })).total).toBe(1);
  });

  it('lets each organization have its own user with one email, and finds them all by it', async () => {
    const first = user('lin@example.com');
    const second = user('Lin@example.com');
    await users.create('org_d', first, { events: [], now });
    await users.create('org_e', second, { events: [], now });

    const everywhere = await users.findByEmail('lin@example.com');
    const inOne = await users.findByEmail('lin@example.com', 'org_e');

    expect(everywhere.map((found) => found.orgId).sort()).toEqual(['org_d', 'org_e']);
    expect(inOne.map((found) => found.user.id)).toEqual([second.id]);
  });

  it('lets exactly one of many simultaneous creates with one email win', async () => {
    const outcomes = await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        users.create('org_race', user(index % 2 ? 'Race@example.com' : 'race@EXAMPLE.com'), {
          events: [],
          now,
        }),
      ),
    );

    expect(outcomes.filter((outcome) => outcome === undefined)).toHaveLength(1);
    expect((await users.list('org_race', { limit: 50, offset: 0 })).total).toBe(1);
  });

  it('takes over a claim whose user was never written, once it is older than the grace', async () => {
    // A writer claimed the email and died before writing its user.
    await tables.client.send(
      new PutCommand({
        TableName: tables.tableName,
        Item: {
          ...keys.userEmail('orphan@example.com', 'org_f'),
          org_id: 'org_f',
          user_id: newId('user'),
          claimed_at: now,
        },
      }),
    );

    const soon = await users.create('org_f', user('orphan@example.com'), {
      events: [],
      now: now + 1000,
    });
    const later = await users.create('org_f', user('orphan@example.com'), {
      events: [],
      now: now + ORPHAN_CLAIM_GRACE_MS + 1,
    });

    expect(soon).toBe('email_taken');
    expect(later).toBeUndefined();
  });

  it('moves the claim when the email changes, freeing the old address', async () => {
    const mover = user('old@example.com');
    const other = user('taken@example.com');
    await users.create('org_g', mover, { events: [], now });
    await users.create('org_g', other, { events: [], now });

    const refused = await users.update(
      'org_g',
      mover.id,
      { email: 'TAKEN@example.com', updated_at: at },
      { expectedVersion: 1, events: [], now },
    );
    const moved = await users.update(
      'org_g',
      mover.id,
      { email: 'new@example.com', updated_at: at },
      { expectedVersion: 1, events: [], now },
    );
    const reused = await users.create('org_g', user('old@example.com'), { events: [], now });

    expect(refused).toBe('email_taken');
    expect(moved).toMatchObject({ email: 'new@example.com' });
    expect(reused).toBeUndefined();
    expect((await users.findByEmail('new@example.com')).map((found) => found.user.id)).toEqual([
      mover.id,
    ]);
  });

  it('releases a newly claimed email when the update loses to a concurrent one', async () => {
    const someone = user('loser@example.com');
    await users.create('org_h', someone, { events: [], now });

    const stale = await users.update(
      'org_h',
      someone.id,
      { email: 'wanted@example.com', updated_at: at },
      { expectedVersion: 7, events: [], now },
    );
    const claimant = await users.create('org_h', user('wanted@example.com'), { events: [], now });

    expect(stale).toBeNull();
    expect(claimant).toBeUndefined();
  });

  it('keeps an invitation by its hash and replaces credentials in the user write', async () => {
    const invited = user('inv@example.com', { status: 'invited' });
    const invitation = { tokenHash: 'a'.repeat(64), expiresAt: now + 60_000 };
    await users.create('org_i', invited, { invitation, events: [], now });

    expect(await users.findInvitation(invitation.tokenHash)).toEqual({
      orgId: 'org_i',
      userId: invited.id,
      expiresAt: invitation.expiresAt,
    });
    const accepted = await users.update(
      'org_i',
      invited.id,
      { status: 'active', updated_at: at },
      {
        expectedVersion: 1,
        events: [],
        credentials: { passwordHash: 'scrypt$y', invitation: null },
        now,
      },
    );
    await users.deleteInvitation(invitation.tokenHash);

    expect(accepted).toMatchObject({ status: 'active' });
    expect((await users.getWithCredentials('org_i', invited.id))?.credentials).toEqual({
      passwordHash: 'scrypt$y',
      invitation: null,
    });
    expect(await users.findInvitation(invitation.tokenHash)).toBeNull();
  });

  it('records a sign-in time', async () => {
    const someone = user('login@example.com');
    await users.create('org_j', someone, { events: [], now });

    await users.recordLogin('org_j', someone.id, '2026-11-22T00:00:00.000Z');

    expect((await users.get('org_j', someone.id))?.last_login_at).toBe('2026-11-22T00:00:00.000Z');
  });
  it("keeps a user's session cutoff beside them, moving only forward, outside their version (P222)", async () => {
    const ada = user('cutoff@example.com');
    await users.create('org_s', ada, { events: [], now });
    const fresh = await users.getWithGroups('org_s', ada.id);
    const created = await users.getWithCredentials('org_s', ada.id);

    const ended = await users.endSessions('org_s', ada.id, now + 10);
    const back = await users.endSessions('org_s', ada.id, now + 5);
    const afterEnd = await users.getWithCredentials('org_s', ada.id);
    await users.update(
      'org_s',
      ada.id,
      { status: 'deactivated', updated_at: at },
      { expectedVersion: afterEnd?.version ?? -1, events: [], sessionsValidFrom: now + 20, now },
    );
    const unknown = await users.endSessions('org_s', newId('user'), now);
    const foreign = await users.endSessions('org_t', ada.id, now);

    expect(fresh?.sessionsValidFrom).toBeNull();
    expect(ended).toBe(true);
    expect(back).toBe(true);
    expect(afterEnd?.version).toBe(created?.version);
    expect((await users.getWithGroups('org_s', ada.id))?.sessionsValidFrom).toBe(now + 20);
    expect(await users.get('org_s', ada.id)).not.toHaveProperty('sessions_valid_from_ms');
    expect(unknown).toBe(false);
    expect(foreign).toBe(false);
  });
});

describe('DynamoDbSessionRevocations (dynalite)', () => {
  let tables: TestTables;
  beforeAll(async () => {
    tables = await startTestTables();
  });
  afterAll(() => tables.end());

  it('remembers a revoked session until the given time only', async () => {
    const revocations = new DynamoDbSessionRevocations(tables.client, tables.tableName);
    const session = newId('session');

    await revocations.revoke(session, 2_000);

    expect(await revocations.isRevoked(session, 1_999)).toBe(true);
    expect(await revocations.isRevoked(session, 2_000)).toBe(false);
    expect(await revocations.isRevoked(newId('session'), 1_000)).toBe(false);
  });

  it('keeps password-session cutoffs per organization and domain, cached per instance for 30 s (P223)', async () => {
    let clockMs = now;
    const clock = { now: () => new Date(clockMs) };
    const writer = new DynamoDbPasswordSessionCutoffs(tables.client, tables.tableName, clock);
    const reader = new DynamoDbPasswordSessionCutoffs(tables.client, tables.tableName, clock);
    const kept = newId('session');

    const before = await reader.validFrom('org_p', 'acme.example');
    await writer.endForOrganization('org_p', { at: now + 1, keptSessionId: kept });
    await writer.endForDomain('acme.example', { at: now + 2, keptSessionId: null });
    await writer.endForDomain('acme.example', { at: now, keptSessionId: null });
    const writerSees = await writer.validFrom('org_p', 'acme.example');
    const readerCached = await reader.validFrom('org_p', 'acme.example');
    clockMs += PASSWORD_CUTOFF_CACHE_MS + 1;
    const readerLater = await reader.validFrom('org_p', 'acme.example');
    const otherOrg = await reader.validFrom('org_q', null);

    expect(before).toEqual([]);
    const expected = [
      { at: now + 1, keptSessionId: kept },
      { at: now + 2, keptSessionId: null },
    ];
    expect(writerSees).toEqual(expected);
    expect(readerCached).toEqual([]);
    expect(readerLater).toEqual(expected);
    expect(otherOrg).toEqual([]);
  });
});
