import { expectFlatError, expectNestedError, fieldPaths } from '../support/error-shapes';
import { api, json } from '../support/http-client';
import { unknownId } from '../support/ids';
import { startTestService, type TestService } from '../support/local-service';
import { createKey, createTenant } from '../support/tenants';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';
import { createTestUser, signedIn, type WebSession } from '../support/web-session';

/** The organization (D13; `/api/organizations/:id`, D8): name, plan (read-only, P74), settings. */
describe('The organization (D8, D13, P74)', () => {
  const clock = new TestClock();
  let service: TestService;
  let admin: WebSession;

  beforeAll(async () => {
    service = await startTestService({ clock });
    admin = await signedIn(service, await createTestUser(service, { role: 'admin' }));
  });
  afterAll(() => service.end());
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  const path = () => `/api/v1/organizations/${service.orgId}`;
  const update = (body: unknown, at = path()) => admin.request(at, { method: 'PUT', body });

  it('shows an administrator their organization: name, plan and settings', async () => {
    const response = await admin.request(path());

    expect(response.status).toBe(200);
    expect(json(response)).toEqual({
      id: service.orgId,
      name: expect.any(String),
      plan: 'enterprise',
      settings: { ip_allowlist: [] },
      created_at: expect.any(String),
      // Never changed yet (this suite's first request).
      updated_at: null,
    });
  });

  it('renames it, keeps what was not sent, and accepts the plan it already has', async () => {
    const renamed = await update({ name: '  Acme Research  ' });
    const roundTrip = await update({
      ...json(renamed),
      id: undefined,
      created_at: undefined,
      updated_at: undefined,
    });
    const read = await admin.request(path());

    expect(json(renamed)).toMatchObject({ name: 'Acme Research', plan: 'enterprise' });
    expect(Date.parse(json(renamed).updated_at)).toBeGreaterThanOrEqual(
      Date.parse(json(renamed).created_at),
    );
    expect(roundTrip.status).toBe(200);
    expect(json(read)).toMatchObject({ name: 'Acme Research', settings: { ip_allowlist: [] } });
  });

  it('keeps the plan read-only: another plan is 400 naming plan (the operator changes it)', async () => {
    const response = await update({ plan: 'free' });
    const read = await admin.request(path());

    const error = expectNestedError(response, 400, 'invalid_request');
    expect(fieldPaths(error)).toEqual(['plan']);
    expect(json(read).plan).toBe('enterprise');
  });

  it('refuses bad bodies with 400 naming the field, and changes nothing', async () => {
    const before = json(await admin.request(path()));
    const cases: Array<[unknown, string[]]> = [
      [{ name: '' }, ['name']],
      [{ name: 'n'.repeat(201) }, ['name']],
      [{ name: 7 }, ['name']],
      [{ plan: 'platinum' }, ['plan']],
      [{ settings: { ip_allowlist: '10.0.0.0/8' } }, ['settings.ip_allowlist']],
      [{ settings: { ip_allowlist: [42] } }, ['settings.ip_allowlist.0']],
      [{ settings: null }, ['settings']],
    ];
    for (const [body, fields] of cases) {
      const response = await update(body);
      expect({
        body,
        fields: fieldPaths(expectNestedError(response, 400, 'invalid_request')),
      }).toEqual({ body, fields });
    }
    const unknown = await update({ settings: { enforce_sso: true }, id: 'org_x' });
    expect(
      expectNestedError(unknown, 400, 'invalid_request').details.unknown_fields.sort(),
    ).toEqual(['id', 'settings.enforce_sso']);
    expect(json(await admin.request(path()))).toEqual(before);
  });

  it("answers another organization's id like any other unknown id: 404, v1 and legacy", async () => {
    const other = await createTenant(service);

    const v1Get = await admin.request(`/api/v1/organizations/${other.orgId}`);
    const v1Put = await update({ name: 'Taken over' }, `/api/v1/organizations/${other.orgId}`);
    const legacyGet = await admin.request(`/api/organizations/${other.orgId}`);
    const unknown = await admin.request(`/api/v1/organizations/${unknownId('org')}`);
    const theirs = await api(service.url, `/api/v1/organizations/${other.orgId}`, {
      key: other.key,
    });

    expectNestedError(v1Get, 404, 'not_found');
    expectNestedError(v1Put, 404, 'not_found');
    expect(expectFlatError(legacyGet, 404)).toMatchObject({ status: 404, code: 'not_found' });
    expectNestedError(unknown, 404, 'not_found');
    expect(json(theirs).name).not.toBe('Taken over');
  });

  it('answers a malformed organization id with 400 (D1)', async () => {
    const response = await admin.request('/api/v1/organizations/agt_01jf3z8r9v2k4m6n8p0q2s4t6w');

    expectNestedError(response, 400, 'invalid_request');
  });

  it('lets an Admin API key read and change it (the spec: Admin scope covers organization settings)', async () => {
    const adminKey = await createKey(service, service.orgId, { scopes: ['Admin'] });
    const readKey = await createKey(service, service.orgId, { scopes: ['Read'] });

    const read = await api(service.url, path(), { key: adminKey.key });
    const changed = await api(service.url, path(), {
      method: 'PUT',
      key: adminKey.key,
      body: { name: 'Renamed by a script' },
    });
    const refused = await api(service.url, path(), { key: readKey.key });

    expect(read.status).toBe(200);
    expect(json(changed).name).toBe('Renamed by a script');
    expect(expectNestedError(refused, 403, 'forbidden').details.required_scope).toBe('Admin');
  });

  it('refuses every role below admin', async () => {
    for (const role of ['readonly', 'train', 'configure'] as const) {
      const browser = await signedIn(service, await createTestUser(service, { role }));

      const response = await browser.request(path());

      expect(expectNestedError(response, 403, 'forbidden').details).toEqual({
        required_role: 'admin',
        current_role: role,
      });
    }
  });

  it('serves the legacy path with camelCase synonyms, flat errors and deprecation headers (D7)', async () => {
    const legacyPath = `/api/organizations/${service.orgId}`;

    const changed = await update(
      { name: 'Legacy Inc', settings: { ipAllowlist: ['127.0.0.0/8'] } },
      legacyPath,
    );
    const bad = await update({ plan: 'free' }, legacyPath);
    const cleared = await update({ settings: { ipAllowlist: [] } }, legacyPath);

    expect(changed.status).toBe(200);
    expect(json(changed)).toMatchObject({
      name: 'Legacy Inc',
      settings: { ip_allowlist: ['127.0.0.0/8'] },
    });
    expect(changed.headers.get('deprecation')).toBe('true');
    expect(changed.headers.get('link')).toBe(
      `</api/v1/organizations/${service.orgId}>; rel="successor-version"`,
    );
    expect(expectFlatError(bad, 400)).toMatchObject({ code: 'invalid_request' });
    expect(json(cleared).settings.ip_allowlist).toEqual([]);
  });
});
