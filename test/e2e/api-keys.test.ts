import { expectFlatError, expectNestedError, fieldPaths } from '../support/error-shapes';
import { api, json } from '../support/http-client';
import { unknownId } from '../support/ids';
import { startTestService, type TestService } from '../support/local-service';
import { createTenant } from '../support/tenants';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';
import { createTestUser, signedIn, type WebSession } from '../support/web-session';

const KEY_SHAPE = /^svcsk_test_[0-9A-Za-z]{36}$/;

/** D11: key management for people, through a signed-in administrator's session. */
describe('API key management (D10, D11, P75, P78)', () => {
  const clock = new TestClock();
  let service: TestService;
  let admin: WebSession;

  beforeAll(async () => {
    service = await startTestService({ clock });
    admin = await signedIn(service, await createTestUser(service, { role: 'admin' }));
  });
  afterAll(() => service.end());
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  const createKey = (body: Record<string, unknown>, path = '/api/v1/keys') =>
    admin.request(path, { method: 'POST', body });
  const listed = async () => json(await admin.request('/api/v1/keys?limit=200')).keys as any[];

  it('creates a key whose value is shown once, and a script can use it at once', async () => {
    const created = await createKey({ name: 'nightly export', scopes: ['Read'] });
    const body = json(created);

    const used = await api(service.url, '/api/v1/agents', { key: body.key });
    const list = await admin.request('/api/v1/keys?limit=200');

    expect(created.status).toBe(201);
    expect(body).toEqual({
      id: expect.stringMatching(/^key_[0-9a-z]{26}$/),
      name: 'nightly export',
      scopes: ['Read'],
      environment: 'test',
      last4: body.key.slice(-4),
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      last_used_at: null,
      key: expect.stringMatching(KEY_SHAPE),
    });
    expect(used.status).toBe(200);
    // Never again: not in the list, not anywhere in its text.
    const entry = json(list).keys.find((key: { id: string }) => key.id === body.id);
    expect(entry).toEqual({ ...body, key: undefined, last_used_at: expect.any(String) });
    expect(Object.keys(entry)).not.toContain('key');
    expect(list.text).not.toContain(body.key);
    expect(list.text).not.toContain(body.key.slice(11, 41));
  });

  it('holds the key to its scopes: a Read key cannot write', async () => {
    const { key } = json(await createKey({ name: 'reader', scopes: ['Read'] }));

    const write = await api(service.url, '/api/v1/agents', {
      method: 'POST',
      key,
      body: { name: 'x', data_source_ids: [] },
    });

    expect(expectNestedError(write, 403, 'forbidden').details).toEqual({
      required_scope: 'Write',
      current_scopes: ['Read'],
    });
  });

  it('stamps last_used_at at first use, then at most once a minute (P75)', async () => {
    const { id, key } = json(await createKey({ name: 'busy', scopes: ['Read'] }));
    const lastUsed = async () => (await listed()).find((entry) => entry.id === id)?.last_used_at;

    const never = await lastUsed();
    await api(service.url, '/api/v1/agents', { key });
    const first = await lastUsed();
    clock.advance(20_000);
    await api(service.url, '/api/v1/agents', { key });
    const soonAfter = await lastUsed();
    clock.advance(61_000);
    await api(service.url, '/api/v1/agents', { key });
    const later = await lastUsed();

    expect(never).toBeNull();
    expect(first).toEqual(expect.any(String));
    expect(soonAfter).toBe(first);
    expect(Date.parse(later) - Date.parse(first)).toBeGreaterThanOrEqual(81_000);
  });

  it('deletes a key: it stops working at once, and a second delete is 404', async () => {
    const { id, key } = json(await createKey({ name: 'temporary', scopes: ['Admin'] }));

    const deleted = await admin.request(`/api/v1/keys/${id}`, { method: 'DELETE' });
    const after = await api(service.url, '/api/v1/agents', { key });
    const again = await admin.request(`/api/v1/keys/${id}`, { method: 'DELETE' });

    expect(deleted.status).toBe(204);
    expectNestedError(after, 401, 'unauthorized');
    expectNestedError(again, 404, 'not_found');
    expect((await listed()).map((entry) => entry.id)).not.toContain(id);
  });

  it("makes keys of the deployment's own environment only (D10, P78)", async () => {
    const spelled = await createKey({ name: 'explicit', scopes: ['Execute'], environment: 'Test' });
    const live = await createKey({ name: 'live', scopes: ['Execute'], environment: 'live' });

    expect(spelled.status).toBe(201);
    expect(json(spelled).environment).toBe('test');
    expect(fieldPaths(expectNestedError(live, 400, 'invalid_request'))).toEqual(['environment']);
  });

  it('says in the list which environment a new key will carry (P282)', async () => {
    const list = json(await admin.request('/api/v1/keys?limit=1'));

    expect(list.environment).toBe('test');
    expect(json(await createKey({ name: 'as said', scopes: ['Read'] })).environment).toBe(
      list.environment,
    );
  });

  it('refuses bad bodies with 400 naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string[]]> = [
      [{ scopes: ['Read'] }, ['name']],
      [{ name: '  ', scopes: ['Read'] }, ['name']],
      [{ name: 'x'.repeat(201), scopes: ['Read'] }, ['name']],
      [{ name: 'k', scopes: [] }, ['scopes']],
      [{ name: 'k', scopes: ['read'] }, ['scopes.0']],
      [{ name: 'k' }, ['scopes']],
      [{ name: 'k', scopes: ['Read'], environment: 'staging' }, ['environment']],
    ];
    for (const [body, fields] of cases) {
      const response = await createKey(body);
      expect({
        body,
        fields: fieldPaths(expectNestedError(response, 400, 'invalid_request')),
      }).toEqual({
        body,
        fields,
      });
    }
    const unknown = await createKey({ name: 'k', scopes: ['Read'], key: 'svcsk_test_mine' });
    expect(expectNestedError(unknown, 400, 'invalid_request').details.unknown_fields).toEqual([
      'key',
    ]);
  });

  it('never lets an API key manage keys, not even an Admin key (D11)', async () => {
    const adminKey = service.adminKey;

    const responses = [
      await api(service.url, '/api/v1/keys', { key: adminKey }),
      await api(service.url, '/api/v1/keys', {
        method: 'POST',
        key: adminKey,
        body: { name: 'minted', scopes: ['Admin'] },
      }),
      await api(service.url, `/api/v1/keys/${unknownId('key')}`, {
        method: 'DELETE',
        key: adminKey,
      }),
    ];
    const legacy = await api(service.url, '/api/keys', { key: adminKey });

    for (const response of responses) {
      expect(expectNestedError(response, 403, 'forbidden').details).toEqual({
        required_credential: 'session',
      });
    }
    expect(expectFlatError(legacy, 403)).toMatchObject({
      details: { required_credential: 'session' },
    });
  });

  it('refuses every role below admin', async () => {
    for (const role of ['readonly', 'train', 'configure'] as const) {
      const browser = await signedIn(service, await createTestUser(service, { role }));

      const list = await browser.request('/api/v1/keys');
      const create = await browser.request('/api/v1/keys', {
        method: 'POST',
        body: { name: 'nope', scopes: ['Read'] },
      });

      expect(expectNestedError(list, 403, 'forbidden').details.required_role).toBe('admin');
      expect(expectNestedError(create, 403, 'forbidden').details.current_role).toBe(role);
    }
  });

  it("keeps each organization's keys to itself: another admin neither sees nor deletes them", async () => {
    const { id, key } = json(await createKey({ name: 'ours', scopes: ['Read'] }));
    const other = await createTenant(service);
    const otherAdmin = await signedIn(
      service,
      await createTestUser(service, { orgId: other.orgId, role: 'admin' }),
    );

    const theirList = json(await otherAdmin.request('/api/v1/keys?limit=200')).keys;
    const theirDelete = await otherAdmin.request(`/api/v1/keys/${id}`, { method: 'DELETE' });
    const stillWorks = await api(service.url, '/api/v1/agents', { key });

    expect(theirList.map((entry: { id: string }) => entry.id)).not.toContain(id);
    expectNestedError(theirDelete, 404, 'not_found');
    expect(stillWorks.status).toBe(200);
  });

  it('answers a malformed key id with 400 (D1)', async () => {
    const response = await admin.request('/api/v1/keys/agt_01jf3z8r9v2k4m6n8p0q2s4t6w', {
      method: 'DELETE',
    });

    expectNestedError(response, 400, 'invalid_request');
  });

  it('refuses a change without the CSRF token (D12)', async () => {
    const response = await admin.request('/api/v1/keys', {
      method: 'POST',
      body: { name: 'csrf', scopes: ['Read'] },
      headers: { 'x-csrf-token': 'forged' },
    });

    expect(expectNestedError(response, 403, 'forbidden').details.reason).toBe(
      'csrf_token_mismatch',
    );
  });

  it('lists newest first with D2 pagination', async () => {
    const a = json(await createKey({ name: 'page a', scopes: ['Read'] }));
    const b = json(await createKey({ name: 'page b', scopes: ['Read'] }));

    const page = json(await admin.request('/api/v1/keys?limit=2&offset=0'));
    const tooMany = await admin.request('/api/v1/keys?limit=201');

    expect(page.keys.map((entry: { id: string }) => entry.id)).toEqual([b.id, a.id]);
    expect(page).toMatchObject({ limit: 2, offset: 0, total: expect.any(Number) });
    expect(page.total).toBeGreaterThanOrEqual(2);
    expectNestedError(tooMany, 400, 'invalid_request');
  });

  it('serves the legacy /api/keys with flat errors and deprecation headers (D5, D7)', async () => {
    const created = await createKey({ name: 'legacy', scopes: ['Read'] }, '/api/keys');
    const list = await admin.request('/api/keys');
    const bad = await createKey({ name: 'legacy' }, '/api/keys');
    const deleted = await admin.request(`/api/keys/${json(created).id}`, { method: 'DELETE' });

    expect(created.status).toBe(201);
    expect(json(created).key).toMatch(KEY_SHAPE);
    expect(list.status).toBe(200);
    expect(list.headers.get('deprecation')).toBe('true');
    expect(list.headers.get('link')).toBe('</api/v1/keys>; rel="successor-version"');
    expect(expectFlatError(bad, 400)).toMatchObject({ status: 400, code: 'invalid_request' });
    expect(deleted.status).toBe(204);
  });
});
