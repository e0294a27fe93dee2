import { expectFlatError, expectNestedError, fieldPaths } from '../support/error-shapes';
import { createAgent, createDataSource } from '../support/fixtures';
import { api, json } from '../support/http-client';
import { unknownId } from '../support/ids';
import { startTestService, type TestService } from '../support/local-service';
import { createTenant, type TestKey } from '../support/tenants';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';

/**
 * ARCHITECTURE, tenant isolation: organization B's key never sees, changes or
 * references organization A's resources. Another tenant's id answers exactly
 * like an id that does not exist (404, or 400 "unknown" when named in a body),
 * so nothing is learnt about other tenants.
 */
describe('Tenant isolation', () => {
  const clock = new TestClock();
  let service: TestService;
  let tenantB: TestKey;
  let agentOfA: Record<string, any>;
  let sourceOfA: Record<string, any>;

  beforeAll(async () => {
    service = await startTestService({ clock });
    tenantB = await createTenant(service, { name: 'Tenant B' });
    sourceOfA = await createDataSource(service, service.adminKey);
    agentOfA = await createAgent(service, service.adminKey, {
      name: 'Agent of A',
      data_source_ids: [sourceOfA.id],
    });
    // B owns resources too, so its lists are not trivially empty.
    const sourceOfB = await createDataSource(service, tenantB.key);
    await createAgent(service, tenantB.key, {
      name: 'Agent of B',
      data_source_ids: [sourceOfB.id],
    });
  });
  afterAll(() => service.end());
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  const asB = (path: string, method = 'GET', body?: unknown) =>
    api(service.url, path, { method, key: tenantB.key, ...(body !== undefined ? { body } : {}) });

  type IsolationCase = readonly [method: string, what: string, path: () => string, body: unknown];

  const v1Cases: readonly IsolationCase[] = [
    ['GET', 'an agent', () => `/api/v1/agents/${agentOfA.id}`, undefined],
    ['PUT', 'an agent', () => `/api/v1/agents/${agentOfA.id}`, { name: 'hijacked' }],
    ['DELETE', 'an agent', () => `/api/v1/agents/${agentOfA.id}`, undefined],
    ['GET', 'a data source', () => `/api/v1/data-sources/${sourceOfA.id}`, undefined],
    ['PUT', 'a data source', () => `/api/v1/data-sources/${sourceOfA.id}`, { name: 'hijacked' }],
    ['DELETE', 'a data source', () => `/api/v1/data-sources/${sourceOfA.id}`, undefined],
    ['POST', 'a data source sync', () => `/api/v1/data-sources/${sourceOfA.id}/sync`, undefined],
    ['GET', 'a data source status', () => `/api/v1/data-sources/${sourceOfA.id}/status`, undefined],
  ];

  it.each(v1Cases)(
    'answers %s on %s of another tenant with 404, as for an unknown id',
    async (method, _what, path, body) => {
      const response = await asB(path(), method, body);

      const error = expectNestedError(response, 404, 'not_found');
      const unknownPath = path().replace(/(agt|ds)_[0-9a-z]{26}/, (id) =>
        unknownId(id.startsWith('agt') ? 'agt' : 'ds'),
      );
      const unknown = expectNestedError(await asB(unknownPath, method, body), 404, 'not_found');
      expect(error.details).toEqual(unknown.details);
      expect(error.message.replace(/(agt|ds)_\w+/, 'ID')).toBe(
        unknown.message.replace(/(agt|ds)_\w+/, 'ID'),
      );
    },
  );

  const legacyCases: readonly IsolationCase[] = [
    ['GET', 'an agent', () => `/api/ai-agent-managers/${agentOfA.id}`, undefined],
    ['PUT', 'an agent', () => `/api/ai-agent-managers/${agentOfA.id}`, { name: 'hijacked' }],
    ['DELETE', 'an agent', () => `/api/ai-agent-managers/${agentOfA.id}`, undefined],
    ['POST', 'a data source process', () => `/api/data-specs/${sourceOfA.id}/process`, undefined],
  ];

  it.each(legacyCases)(
    'answers legacy %s on %s of another tenant with a flat 404',
    async (method, _what, path, body) => {
      const response = await asB(path(), method, body);

      expect(expectFlatError(response, 404)).toMatchObject({ status: 404, code: 'not_found' });
    },
  );

  it("leaves A's resources untouched by everything B tried", async () => {
    const agent = await api(service.url, `/api/v1/agents/${agentOfA.id}`, {
      key: service.adminKey,
    });
    const source = await api(service.url, `/api/v1/data-sources/${sourceOfA.id}`, {
      key: service.adminKey,
    });

    expect(agent.status).toBe(200);
    expect(json(agent)).toEqual(agentOfA);
    expect(source.status).toBe(200);
    expect(json(source)).toMatchObject({ name: sourceOfA.name, current_job: null });
  });

  it.each([
    ['/api/v1/agents', 'agents'],
    ['/api/ai-agent-managers', 'agents'],
    ['/api/v1/data-sources', 'data_sources'],
    ['/api/data-specs', 'data_sources'],
  ])("never lists A's items in B's %s", async (path, field) => {
    const response = await asB(path);

    expect(response.status).toBe(200);
    const body = json(response);
    const ids = (body[field] as Array<{ id: string }>).map((item) => item.id);
    expect(ids).toHaveLength(1);
    expect(ids).not.toContain(agentOfA.id);
    expect(ids).not.toContain(sourceOfA.id);
    expect(body.total).toBe(1);
  });

  it("never counts A's items in B's filtered lists", async () => {
    const response = await asB('/api/v1/data-sources?status=pending&limit=200');

    expect(json(response)).toMatchObject({ total: 1 });
  });

  it("refuses an agent in B that names A's data source, as unknown (400)", async () => {
    const foreign = await asB('/api/v1/agents', 'POST', {
      name: 'Borrower',
      data_source_ids: [sourceOfA.id],
    });
    const missingId = unknownId('ds');
    const missing = await asB('/api/v1/agents', 'POST', {
      name: 'Borrower',
      data_source_ids: [missingId],
    });

    const foreignError = expectNestedError(foreign, 400, 'invalid_request');
    const missingError = expectNestedError(missing, 400, 'invalid_request');
    expect(fieldPaths(foreignError)).toEqual(['data_source_ids']);
    expect(foreignError.details.unknown_data_source_ids).toEqual([sourceOfA.id]);
    expect(missingError.details.unknown_data_source_ids).toEqual([missingId]);
    expect(foreignError.message.replace(sourceOfA.id, 'ID')).toBe(
      missingError.message.replace(missingId, 'ID'),
    );
  });

  it("refuses to point B's existing agent at A's data source", async () => {
    const list = json(await asB('/api/v1/agents'));
    const agentOfB = list.agents[0];

    const response = await asB(`/api/v1/agents/${agentOfB.id}`, 'PUT', {
      data_source_ids: [sourceOfA.id],
    });

    expect(expectNestedError(response, 400, 'invalid_request').details).toMatchObject({
      unknown_data_source_ids: [sourceOfA.id],
    });
  });

  it("does not let B delete A's data source even though A's agent uses it (404, not 409)", async () => {
    const response = await asB(`/api/v1/data-sources/${sourceOfA.id}`, 'DELETE');

    const error = expectNestedError(response, 404, 'not_found');
    expect(JSON.stringify(error)).not.toContain(agentOfA.id);
  });

  it("keeps A's key out of B's resources in the same way", async () => {
    const listOfB = json(await asB('/api/v1/data-sources'));
    const sourceOfB = listOfB.data_sources[0];

    const response = await api(service.url, `/api/v1/data-sources/${sourceOfB.id}/status`, {
      key: service.adminKey,
    });

    expectNestedError(response, 404, 'not_found');
  });
});
