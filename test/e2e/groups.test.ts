import { expectFlatError, expectNestedError, fieldPaths } from '../support/error-shapes';
import { api, json } from '../support/http-client';
import { unknownId } from '../support/ids';
import { startTestService, type TestService } from '../support/local-service';
import { createTenant } from '../support/tenants';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';
import { createTestUser, signedIn, type TestUser, type WebSession } from '../support/web-session';

/**
 * Groups (issue 9 item 5; P82–P84): CRUD and memberships over HTTP with a
 * signed-in administrator's cookie jar, role elevation through a group at
 * the next request, cross-tenant attempts, bad input and the legacy paths.
 * What a group's agents restrict is in groups-agent-access.test.ts.
 */
describe('Groups', () => {
  const clock = new TestClock();
  let service: TestService;
  let admin: TestUser;
  let browser: WebSession;

  beforeAll(async () => {
    service = await startTestService({ clock });
    admin = await createTestUser(service, { role: 'admin' });
    browser = await signedIn(service, admin);
  });
  afterAll(() => service.end());
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  const createGroup = async (body: Record<string, unknown>) => {
    const response = await browser.request('/api/v1/groups', { method: 'POST', body });
    expect({ status: response.status, body: response.body }).toMatchObject({ status: 201 });
    return json(response);
  };
  const addMember = (groupId: string, userId: string, as: WebSession = browser) =>
    as.request(`/api/v1/groups/${groupId}/members/${userId}`, { method: 'PUT' });
  const removeMember = (groupId: string, userId: string, as: WebSession = browser) =>
    as.request(`/api/v1/groups/${groupId}/members/${userId}`, { method: 'DELETE' });
  const agentId = async () => {
    const response = await api(service.url, '/api/v1/agents', {
      method: 'POST',
      key: service.adminKey,
      body: { name: 'Support', data_source_ids: [] },
    });
    return json(response).id as string;
  };

  it('creates a group with P82 defaults: role readonly, no agent restriction', async () => {
    const response = await browser.request('/api/v1/groups', {
      method: 'POST',
      body: { name: '  Support team ' },
    });

    expect(response.status).toBe(201);
    expect(json(response)).toEqual({
      id: expect.stringMatching(/^grp_[0-9a-z]{26}$/),
      org_id: service.orgId,
      name: 'Support team',
      description: null,
      role: 'readonly',
      agent_ids: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updated_at: json(response).created_at,
    });
  });

  it('reads, lists, updates and deletes a group', async () => {
    const agent = await agentId();
    const created = await createGroup({
      name: 'Editors',
      description: 'People who train',
      role: 'train',
      agent_ids: [agent],
    });

    const read = await browser.request(`/api/v1/groups/${created.id}`);
    const list = await browser.request('/api/v1/groups?limit=200');
    clock.advance(1000);
    const updated = await browser.request(`/api/v1/groups/${created.id}`, {
      method: 'PUT',
      body: { name: 'Trainers', role: 'configure', agent_ids: null },
    });
    const deleted = await browser.request(`/api/v1/groups/${created.id}`, { method: 'DELETE' });
    const gone = await browser.request(`/api/v1/groups/${created.id}`);
    const deletedAgain = await browser.request(`/api/v1/groups/${created.id}`, {
      method: 'DELETE',
    });

    expect(json(read)).toEqual(created);
    expect(json(list)).toMatchObject({ limit: 200, offset: 0, total: expect.any(Number) });
    expect(json(list).groups.map((group: { id: string }) => group.id)).toContain(created.id);
    expect(json(updated)).toMatchObject({
      id: created.id,
      name: 'Trainers',
      description: 'People who train',
      role: 'configure',
      agent_ids: null,
      created_at: created.created_at,
    });
    expect(json(updated).updated_at > created.updated_at).toBe(true);
    expect(deleted.status).toBe(204);
    expectNestedError(gone, 404, 'not_found');
    expectNestedError(deletedAgain, 404, 'not_found');
  });

  it('adds, lists and removes members by user id; adding twice changes nothing', async () => {
    const group = await createGroup({ name: 'Members' });
    const first = await createTestUser(service, { role: 'readonly' });
    const second = await createTestUser(service, { role: 'train' });

    const added = await addMember(group.id, first.id);
    const again = await addMember(group.id, first.id);
    await addMember(group.id, second.id);
    const members = await browser.request(`/api/v1/groups/${group.id}/members`);
    const removed = await removeMember(group.id, first.id);
    const removedAgain = await removeMember(group.id, first.id);
    const after = await browser.request(`/api/v1/groups/${group.id}/members?limit=1`);

    expect(added.status).toBe(204);
    expect(again.status).toBe(204);
    expect(json(members)).toMatchObject({ total: 2, limit: 50, offset: 0 });
    // P1: newest first; each member is a user as /api/v1/users shows it.
    expect(json(members).members.map((user: { id: string }) => user.id)).toEqual([
      second.id,
      first.id,
    ]);
    expect(json(members).members[0]).toMatchObject({
      org_id: service.orgId,
      email: second.email,
      role: 'train',
      status: 'active',
    });
    expect(removed.status).toBe(204);
    expectNestedError(removedAgain, 404, 'not_found');
    expect(json(after)).toMatchObject({ total: 1, members: [{ id: second.id }] });
  });

  it('lifts a readonly user to admin through an admin group, and drops them at the next request once removed', async () => {
    const user = await createTestUser(service, { role: 'readonly' });
    const theirs = await signedIn(service, user);
    const admins = await createGroup({ name: 'Admins', role: 'admin' });

    const before = await theirs.request('/api/v1/users');
    await addMember(admins.id, user.id);
    const elevated = await theirs.request('/api/v1/users');
    const invited = await theirs.request('/api/v1/users', {
      method: 'POST',
      body: { email: `via-group-${Date.now()}@example.com`, name: 'Via group', role: 'readonly' },
    });
    const me = await theirs.request('/api/v1/auth/me');
    await removeMember(admins.id, user.id);
    const dropped = await theirs.request('/api/v1/users');

    expect(expectNestedError(before, 403, 'forbidden').details).toEqual({
      required_role: 'admin',
      current_role: 'readonly',
    });
    expect(elevated.status).toBe(200);
    expect(invited.status).toBe(201);
    // Their own role is unchanged; the effective one is shown apart (P83).
    expect(json(me).user.role).toBe('readonly');
    expect(json(me).access).toEqual({
      role: 'admin',
      group_ids: [admins.id],
      agent_ids: null,
    });
    expect(expectNestedError(dropped, 403, 'forbidden').details).toEqual({
      required_role: 'admin',
      current_role: 'readonly',
    });
  });

  it("applies a group's changed role and its deletion at the members' next request", async () => {
    const user = await createTestUser(service, { role: 'readonly' });
    const theirs = await signedIn(service, user);
    const group = await createGroup({ name: 'Builders', role: 'configure' });
    await addMember(group.id, user.id);
    const createSource = () =>
      theirs.request('/api/v1/data-sources', {
        method: 'POST',
        body: { type: 'file', name: 'Manuals' },
      });

    const asConfigure = await createSource();
    await browser.request(`/api/v1/groups/${group.id}`, {
      method: 'PUT',
      body: { role: 'train' },
    });
    const asTrain = await createSource();
    await browser.request(`/api/v1/groups/${group.id}`, {
      method: 'PUT',
      body: { role: 'configure' },
    });
    const restored = await createSource();
    await browser.request(`/api/v1/groups/${group.id}`, { method: 'DELETE' });
    const afterDelete = await createSource();

    expect(asConfigure.status).toBe(201);
    expect(expectNestedError(asTrain, 403, 'forbidden').details.current_role).toBe('train');
    expect(restored.status).toBe(201);
    expect(expectNestedError(afterDelete, 403, 'forbidden').details.current_role).toBe('readonly');
  });

  it('takes the highest of the own role and every group role', async () => {
    const user = await createTestUser(service, { role: 'configure' });
    const theirs = await signedIn(service, user);
    const lower = await createGroup({ name: 'Lower', role: 'train' });
    const higher = await createGroup({ name: 'Higher', role: 'admin' });

    await addMember(lower.id, user.id);
    const withLower = await theirs.request('/api/v1/auth/me');
    await addMember(higher.id, user.id);
    const withBoth = await theirs.request('/api/v1/auth/me');

    expect(json(withLower).access.role).toBe('configure');
    expect(json(withBoth).access.role).toBe('admin');
    expect([...json(withBoth).access.group_ids].sort()).toEqual([lower.id, higher.id].sort());
  });

  it('deleting a group takes it off its members; a deactivated member keeps the membership', async () => {
    const group = await createGroup({ name: 'Temporary', role: 'configure' });
    const member = await createTestUser(service, { role: 'readonly' });
    const leaving = await createTestUser(service, { role: 'readonly' });
    await addMember(group.id, member.id);
    await addMember(group.id, leaving.id);

    await browser.request(`/api/v1/users/${leaving.id}`, { method: 'DELETE' });
    const members = await browser.request(`/api/v1/groups/${group.id}/members`);
    await browser.request(`/api/v1/groups/${group.id}`, { method: 'DELETE' });
    const stored = await service.runtime.dependencies.users.getWithGroups(service.orgId, member.id);

    expect(json(members).members).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: leaving.id, status: 'deactivated' }),
        expect.objectContaining({ id: member.id, status: 'active' }),
      ]),
    );
    expect(stored?.groupIds).toEqual([]);
  });

  it('does not let an administrator take admin from themselves through a group (P84)', async () => {
    const own = await createTestUser(service, { role: 'readonly' });
    const adminByGroup = await signedIn(service, own);
    const admins = await createGroup({ name: 'Only admins', role: 'admin' });
    await addMember(admins.id, own.id);

    const leave = await removeMember(admins.id, own.id, adminByGroup);
    const demote = await adminByGroup.request(`/api/v1/groups/${admins.id}`, {
      method: 'PUT',
      body: { role: 'configure' },
    });
    const remove = await adminByGroup.request(`/api/v1/groups/${admins.id}`, {
      method: 'DELETE',
    });
    const rename = await adminByGroup.request(`/api/v1/groups/${admins.id}`, {
      method: 'PUT',
      body: { name: 'Still admins', role: 'admin' },
    });
    const byAnother = await removeMember(admins.id, own.id);

    for (const refused of [leave, demote, remove])
      expectNestedError(refused, 409, 'invalid_request');
    expect(json(rename).name).toBe('Still admins');
    expect(byAnother.status).toBe(204);
  });

  it('caps a user at 100 groups (409), counting each group once', async () => {
    const user = await createTestUser(service, { role: 'readonly' });
    const ids = Array.from({ length: 101 }, (_, index) => `grp_${String(index).padStart(26, '0')}`);
    for (const [index, id] of ids.entries()) {
      await service.runtime.dependencies.groups.create(service.orgId, {
        id,
        name: `Bulk ${index}`,
        description: null,
        role: 'readonly',
        agent_ids: null,
        created_at: clock.now().toISOString(),
        updated_at: clock.now().toISOString(),
      });
    }
    for (const id of ids.slice(0, 100)) {
      // Fresh Admin buckets (50 a minute, D16): the cap, not the rate limit, is under test.
      clock.advance(REFILL_ALL_BUCKETS_MS);
      expect((await addMember(id, user.id)).status).toBe(204);
    }

    const oneMore = await addMember(ids[100] ?? '', user.id);
    const again = await addMember(ids[0] ?? '', user.id);
    const theirs = await signedIn(service, user);
    const me = await theirs.request('/api/v1/auth/me');

    expect(expectNestedError(oneMore, 409, 'invalid_request').details).toEqual({
      max_groups: 100,
    });
    expect(again.status).toBe(204);
    expect(json(me).access.group_ids).toHaveLength(100);
  });

  it('lets an Admin API key manage groups, but not give the admin role (P82, P225)', async () => {
    const group = await createGroup({ name: 'Readable' });
    const user = await createTestUser(service, { role: 'readonly' });

    const byKey = await api(service.url, '/api/v1/groups', {
      method: 'POST',
      key: service.adminKey,
      body: { name: 'Readers by key' },
    });
    const list = await api(service.url, '/api/v1/groups', { key: service.adminKey });
    const read = await api(service.url, `/api/v1/groups/${group.id}`, { key: service.adminKey });
    const members = await api(service.url, `/api/v1/groups/${group.id}/members`, {
      key: service.adminKey,
    });
    const create = await api(service.url, '/api/v1/groups', {
      method: 'POST',
      key: service.adminKey,
      body: { name: 'By key', role: 'admin' },
    });
    const join = await api(service.url, `/api/v1/groups/${group.id}/members/${user.id}`, {
      method: 'PUT',
      key: service.adminKey,
    });

    expect(list.status).toBe(200);
    expect(read.status).toBe(200);
    expect(members.status).toBe(200);
    expect(byKey.status).toBe(201);
    expect(join.status).toBe(204);
    expect(expectNestedError(create, 403, 'forbidden').details).toEqual({
      reason: 'admin_role_needs_session',
    });
  });

  it("never shows or changes another organization's groups, users or agents", async () => {
    const other = await createTenant(service);
    const otherAdmin = await createTestUser(service, { orgId: other.orgId, role: 'admin' });
    const otherBrowser = await signedIn(service, otherAdmin);
    const theirGroup = json(
      await otherBrowser.request('/api/v1/groups', {
        method: 'POST',
        body: { name: 'Theirs', role: 'admin' },
      }),
    );
    const theirAgent = json(
      await api(service.url, '/api/v1/agents', {
        method: 'POST',
        key: other.key,
        body: { name: 'Theirs', data_source_ids: [] },
      }),
    ).id;
    const ours = await createGroup({ name: 'Ours' });
    const ourUser = await createTestUser(service, { role: 'readonly' });

    const read = await browser.request(`/api/v1/groups/${theirGroup.id}`);
    const change = await browser.request(`/api/v1/groups/${theirGroup.id}`, {
      method: 'PUT',
      body: { name: 'Mine now' },
    });
    const remove = await browser.request(`/api/v1/groups/${theirGroup.id}`, { method: 'DELETE' });
    const members = await browser.request(`/api/v1/groups/${theirGroup.id}/members`);
    const joinTheirs = await addMember(theirGroup.id, ourUser.id);
    const pullIn = await addMember(ours.id, otherAdmin.id);
    const list = await browser.request('/api/v1/groups?limit=200');
    const theirAgentInOurs = await browser.request(`/api/v1/groups/${ours.id}`, {
      method: 'PUT',
      body: { agent_ids: [theirAgent] },
    });
    const keyRead = await api(service.url, `/api/v1/groups/${ours.id}`, { key: other.key });
    const stillTheirs = await otherBrowser.request(`/api/v1/groups/${theirGroup.id}`);

    for (const response of [read, change, remove, members, joinTheirs, pullIn, keyRead]) {
      expectNestedError(response, 404, 'not_found');
    }
    expect(json(list).groups.map((group: { id: string }) => group.id)).not.toContain(theirGroup.id);
    const error = expectNestedError(theirAgentInOurs, 400, 'invalid_request');
    expect(error.details.unknown_agent_ids).toEqual([theirAgent]);
    expect(json(stillTheirs)).toEqual(theirGroup);
    expect(json(await otherBrowser.request(`/api/v1/groups/${theirGroup.id}/members`)).total).toBe(
      0,
    );
  });

  it('answers 400 for malformed ids and bodies, 404 for unknown groups and users', async () => {
    const group = await createGroup({ name: 'Checked' });
    const duplicate = unknownId('agt');

    const badId = await browser.request('/api/v1/groups/usr_123');
    const wrongKind = await browser.request(`/api/v1/groups/${unknownId('agt')}`);
    const unknown = await browser.request(`/api/v1/groups/${unknownId('grp')}`);
    const badMember = await addMember(group.id, 'grp_nope');
    const unknownUser = await addMember(group.id, unknownId('usr'));
    const unknownGroup = await addMember(unknownId('grp'), admin.id);
    const badBody = await browser.request('/api/v1/groups', {
      method: 'POST',
      body: { name: '', role: 'owner', agent_ids: ['ds_1'], extra: true },
    });
    const duplicates = await browser.request('/api/v1/groups', {
      method: 'POST',
      body: { name: 'Dups', agent_ids: [duplicate, duplicate] },
    });
    const unknownAgent = await browser.request('/api/v1/groups', {
      method: 'POST',
      body: { name: 'Ghost agent', agent_ids: [unknownId('agt')] },
    });
    const tooMany = await browser.request('/api/v1/groups', {
      method: 'POST',
      body: { name: 'Many', agent_ids: Array.from({ length: 101 }, () => unknownId('agt')) },
    });
    const tooLong = await browser.request(`/api/v1/groups/${group.id}`, {
      method: 'PUT',
      body: { name: 'x'.repeat(201), description: 'y'.repeat(1001) },
    });
    const badPage = await browser.request('/api/v1/groups?limit=0');

    expectNestedError(badId, 400, 'invalid_request');
    expectNestedError(wrongKind, 400, 'invalid_request');
    expectNestedError(unknown, 404, 'not_found');
    expectNestedError(badMember, 400, 'invalid_request');
    expectNestedError(unknownUser, 404, 'not_found');
    expectNestedError(unknownGroup, 404, 'not_found');
    const error = expectNestedError(badBody, 400, 'invalid_request');
    expect(fieldPaths(error).sort()).toEqual(['agent_ids.0', 'name', 'role']);
    expect(error.details.unknown_fields).toEqual(['extra']);
    expect(fieldPaths(expectNestedError(duplicates, 400, 'invalid_request'))).toEqual([
      'agent_ids',
    ]);
    expect(
      expectNestedError(unknownAgent, 400, 'invalid_request').details.unknown_agent_ids,
    ).toHaveLength(1);
    expect(fieldPaths(expectNestedError(tooMany, 400, 'invalid_request'))).toEqual(['agent_ids']);
    expect(fieldPaths(expectNestedError(tooLong, 400, 'invalid_request')).sort()).toEqual([
      'description',
      'name',
    ]);
    expectNestedError(badPage, 400, 'invalid_request');
  });

  it('serves the legacy /api/groups (D8) with flat errors, Deprecation, Link, camelCase accepted', async () => {
    const agent = await agentId();
    const user = await createTestUser(service, { role: 'readonly' });

    const created = await browser.request('/api/groups', {
      method: 'POST',
      body: { name: 'Legacy', role: 'train', agentIds: [agent] },
    });
    const id = json(created).id;
    const list = await browser.request('/api/groups');
    const join = await browser.request(`/api/groups/${id}/members/${user.id}`, { method: 'PUT' });
    const members = await browser.request(`/api/groups/${id}/members`);
    const updated = await browser.request(`/api/groups/${id}`, {
      method: 'PUT',
      body: { agentIds: null },
    });
    const missing = await browser.request(`/api/groups/${unknownId('grp')}`);
    const byKey = await api(service.url, '/api/groups', {
      method: 'POST',
      key: service.adminKey,
      body: { name: 'By key' },
    });
    const refused = await api(service.url, '/api/groups', {
      method: 'POST',
      key: service.adminKey,
      body: { name: 'Admins by key', role: 'admin' },
    });
    const deleted = await browser.request(`/api/groups/${id}`, { method: 'DELETE' });

    expect(created.status).toBe(201);
    expect(json(created)).toMatchObject({ name: 'Legacy', role: 'train', agent_ids: [agent] });
    expect(created.headers.get('deprecation')).toBe('true');
    expect(created.headers.get('link')).toBe('</api/v1/groups>; rel="successor-version"');
    expect(json(list).groups.map((group: { id: string }) => group.id)).toContain(id);
    expect(join.status).toBe(204);
    expect(join.headers.get('link')).toBe(
      `</api/v1/groups/${id}/members/${user.id}>; rel="successor-version"`,
    );
    expect(json(members).members.map((member: { id: string }) => member.id)).toEqual([user.id]);
    expect(json(updated).agent_ids).toBeNull();
    expect(expectFlatError(missing, 404)).toMatchObject({ code: 'not_found' });
    expect(byKey.status).toBe(201);
    expect(expectFlatError(refused, 403)).toMatchObject({
      code: 'forbidden',
      details: { reason: 'admin_role_needs_session' },
    });
    expect(deleted.status).toBe(204);
  });

  it('refuses roles below admin on every group route, with the effective role named', async () => {
    const user = await createTestUser(service, { role: 'configure' });
    const theirs = await signedIn(service, user);
    const group = await createGroup({ name: 'Guarded' });

    const list = await theirs.request('/api/v1/groups');
    const create = await theirs.request('/api/v1/groups', {
      method: 'POST',
      body: { name: 'Mine', role: 'admin' },
    });
    const join = await theirs.request(`/api/v1/groups/${group.id}/members/${user.id}`, {
      method: 'PUT',
    });

    for (const response of [list, create, join]) {
      expect(expectNestedError(response, 403, 'forbidden').details).toEqual({
        required_role: 'admin',
        current_role: 'configure',
      });
    }
  });
});
