import type { Route } from '../../layers/core/http/route';
import { ROUTES } from '../../layers/core/http/routes/route-table';
import { createAgent, createDataSource } from '../support/fixtures';
import { type ApiResponse, api, json } from '../support/http-client';
import { concretePath } from '../support/ids';
import { startTestService, type TestService } from '../support/local-service';
import { type ModelProviders, startModelProviders } from '../support/model-providers';
import { createKey, createTenant, type TestKey } from '../support/tenants';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';
import { presignUpload } from '../support/uploads';
import { createTestUser, signedIn, type WebSession } from '../support/web-session';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import { createWebhook, LOCAL_RECEIVERS_ENV, listDeliveries, step } from '../support/webhooks';

/**
 * Public routes that name an organization by design, with why they are not
 * a cross-organization refusal. Any other route with a path id is checked.
 */
const NAMES_AN_ORGANIZATION_BY_DESIGN: Readonly<Record<string, string>> = {
  'GET /api/v1/sso/saml/{org_id}':
    "The SAML service provider metadata an identity provider downloads: public, no credential, the organization's own address.",
  'POST /api/v1/sso/saml/{org_id}':
    "The identity provider's HTTP-POST binding: no credential, the signed assertion decides.",
};

/** An SSO domain organization A has added, for the routes that name a domain. */
const DOMAIN_OF_A = 'domain-of-a.example';

/**
 * The kind of id `{id}` is, by the collection named before it. A route with
 * `{id}` under a collection not listed here fails the test until it is added
 * (with a real resource of A created in `beforeAll`).
 */
const ID_KIND_BY_COLLECTION: Readonly<Record<string, string>> = {
  agents: 'agt',
  'ai-agent-managers': 'agt',
  'data-sources': 'ds',
  'data-specs': 'ds',
  webhooks: 'wh',
  interactions: 'int',
  users: 'usr',
  groups: 'grp',
  organizations: 'org',
  keys: 'key',
  kb: 'kb',
  'model-keys': 'mk',
  evals: 'eval',
};

/** The collection whose `{id}` a route takes, e.g. `agents` for `/api/v1/agents/{id}`. */
const collectionOf = (route: Route): string | undefined => {
  const segments = route.path.split('/');
  return segments[segments.indexOf('{id}') - 1];
};

/** A request body each kind of route accepts, so the lookup, not validation, answers. */
function bodyFor(route: Route): unknown {
  if (
    route.method === 'PUT' &&
    /\/(agents|ai-agent-managers|data-sources|groups)\/\{id\}$/.test(route.path)
  )
    return { name: 'Renamed by another organization' };
  if (route.method === 'PUT' && /\/(organizations)\/\{id\}$/.test(route.path))
    return { name: 'Renamed by another organization' };
  if (route.method === 'PUT' && /webhooks\/\{id\}$/.test(route.path))
    return { description: 'Changed by another organization' };
  if (route.method === 'POST' && /\/\{id\}\/files$/.test(route.path))
    return { filename: 'planted.txt', size_bytes: 5 };
  if (route.method === 'PUT' && /\/sso$/.test(route.path))
    return {
      protocol: 'oidc',
      enforce_sso: false,
      oidc: { issuer: 'https://idp.example.com', client_id: 'c', client_secret: 'a secret value' },
    };
  if (route.method === 'POST' && /\/sso\/domains$/.test(route.path))
    return { domain: 'planted.example' };
  if (route.method === 'PUT' && /users\/\{id\}$/.test(route.path)) return { role: 'readonly' };
  if (route.method === 'PUT' && /kb\/\{id\}$/.test(route.path)) return { title: 'Renamed' };
  if (/interactions\/\{id\}\/feedback$/.test(route.path)) return { feedback: 'negative' };
  return undefined;
}

/**
 * Every route of the route table that takes an id in its path, asked by
 * organization B with organization A's real ids, answers exactly as it does
 * for ids that exist nowhere (ARCHITECTURE, tenant isolation: another
 * tenant's id is indistinguishable from an unknown one): same status, same
 * error code, and a refusal (403 or 404). The routes are read from the table,
 * so a route added with a path id is checked without anyone writing a case;
 * a path parameter this test cannot fill with a real id of A fails it.
 */
describe('Tenant isolation, route by route', () => {
  const clock = new TestClock();
  let service: TestService;
  let providers: ModelProviders;
  let receiver: WebhookReceiver;
  let b: TestKey;
  let bAdmin: WebSession;
  /** A's real ids, by the id prefix `concretePath` puts in each path. */
  const idsOfA = new Map<string, string>();
  const paramsOfA = new Map<string, string>();

  const asA = (path: string, method = 'GET', body?: unknown) =>
    api(service.url, path, {
      method,
      key: service.adminKey,
      ...(body !== undefined ? { body } : {}),
    });

  beforeAll(async () => {
    [providers, receiver] = await Promise.all([startModelProviders(), startWebhookReceiver()]);
    service = await startTestService({ env: { ...LOCAL_RECEIVERS_ENV }, clock });
    b = await createTenant(service, { name: 'Tenant B' });
    bAdmin = await signedIn(service, await createTestUser(service, { orgId: b.orgId }));

    // A file source, so the routes of its files have a real document of A too.
    const source = await createDataSource(service, service.adminKey, {
      type: 'file',
      name: 'Files of A',
      sync_frequency: 'manual',
    });
    const ticket = await presignUpload(service, service.adminKey, source.id, {
      filename: 'handbook.txt',
      size_bytes: 5,
    });
    const agent = await createAgent(service, service.adminKey, {
      name: 'Agent of A',
      data_source_ids: [],
    });
    const user = await createTestUser(service, { role: 'readonly' });
    const group = json(await asA('/api/v1/groups', 'POST', { name: 'Group of A' }));
    expect((await asA(`/api/v1/groups/${group.id}/members/${user.id}`, 'PUT')).status).toBeLessThan(
      300,
    );
    const kb = json(await asA('/api/v1/kb', 'POST', { title: 'Article of A', content: 'Text.' }));
    const modelKey = json(
      await asA('/api/v1/model-keys', 'POST', {
        provider: 'custom',
        key: 'custom-key-of-a-00000000000000000000',
        endpoint: providers.customUrl,
      }),
    );
    const evaluation = json(
      await asA('/api/v1/evals', 'POST', {
        agent_id: agent.id,
        name: 'Eval of A',
        questions: [{ question: 'Anything?' }],
      }),
    );
    const interaction = json(
      await asA('/api/v1/query', 'POST', { agent_id: agent.id, query: 'Anything?' }),
    );
    const webhook = await createWebhook(service, service.adminKey, {
      url: receiver.url(),
      events: ['agent.created'],
    });
    expect((await asA(`/api/v1/webhooks/${webhook.id}/test`, 'POST')).status).toBeLessThan(300);
    await step(service);
    const [delivery] = await listDeliveries(service, service.adminKey, webhook.id);
    const keyOfA = await createKey(service, service.orgId, { scopes: ['Read'] });
    const aAdmin = await signedIn(service, await createTestUser(service, { role: 'admin' }));
    const domain = await aAdmin.request(`/api/v1/organizations/${service.orgId}/sso/domains`, {
      method: 'POST',
      body: { domain: DOMAIN_OF_A },
    });
    expect(domain.status).toBe(201);

    const ids: Array<[string, unknown]> = [
      ['agt', agent.id],
      ['ds', source.id],
      ['usr', user.id],
      ['grp', group.id],
      ['kb', kb.id],
      ['mk', modelKey.id],
      ['eval', evaluation.id],
      ['int', interaction.metadata?.interaction_id],
      ['wh', webhook.id],
      ['org', service.orgId],
      ['key', keyOfA.keyId],
    ];
    for (const [prefix, id] of ids) {
      expect({ prefix, id }).toEqual({
        prefix,
        id: expect.stringMatching(/^[a-z]+_[0-9a-z]{26}$/),
      });
      idsOfA.set(prefix, id as string);
    }
    paramsOfA.set('dlv', delivery?.id);
    paramsOfA.set('doc', ticket.document_id);
    paramsOfA.set('usr', user.id);
  });
  afterAll(async () => {
    await service.end();
    await Promise.all([providers.close(), receiver.close()]);
  });
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  /** The path with A's real ids where `concretePath` put unknown ones. */
  function withIdsOfA(unknownPath: string, route: Route): string {
    let path = unknownPath;
    const idParam = /^([a-z]+)_[0-9a-z]{26}$/;
    const segments = path.split('/');
    const template = route.path.split('/');
    for (const [index, part] of template.entries()) {
      const concrete = segments[index] ?? '';
      if (part === '{domain}') {
        segments[index] = DOMAIN_OF_A;
        continue;
      }
      const prefix = idParam.exec(concrete)?.[1];
      if (!prefix) continue;
      const real =
        part === '{id}'
          ? idsOfA.get(ID_KIND_BY_COLLECTION[collectionOf(route) ?? ''] ?? '')
          : paramsOfA.get(prefix);
      if (!real) throw new Error(`No id of A for ${part} (${prefix}) in ${route.path}`);
      segments[index] = real;
    }
    path = segments.join('/');
    return path;
  }

  const send = (route: Route, path: string): Promise<ApiResponse> => {
    const body = bodyFor(route);
    if (route.access === 'session') {
      return bAdmin.request(path, {
        method: route.method,
        ...(body !== undefined ? { body } : {}),
      });
    }
    return api(service.url, path, {
      method: route.method,
      key: b.key,
      ...(body !== undefined ? { body } : {}),
    });
  };

  const errorCode = (response: ApiResponse): unknown => {
    const body = json(response);
    return body?.error?.code ?? body?.code ?? body?.error;
  };

  const withPathIds = ROUTES.filter((route) => route.path.includes('{')).filter(
    (route) => !(`${route.method} ${route.path}` in NAMES_AN_ORGANIZATION_BY_DESIGN),
  );

  it('checks every route with a path id (the table has them), each of a known id kind', () => {
    expect(withPathIds.length).toBeGreaterThan(60);
    const unknownKinds = withPathIds
      .filter((route) => route.path.includes('{id}'))
      .filter((route) => !((collectionOf(route) ?? '') in ID_KIND_BY_COLLECTION))
      .map((route) => `${route.method} ${route.path}`);
    expect(unknownKinds).toEqual([]);
    for (const name of Object.keys(NAMES_AN_ORGANIZATION_BY_DESIGN)) {
      const [method, path] = name.split(' ');
      expect(ROUTES.some((route) => route.method === method && route.path === path)).toBe(true);
    }
  });

  it.each(withPathIds.map((route) => [`${route.method} ${route.path}`, route] as const))(
    "%s: A's id answers as an unknown id does, with a refusal",
    async (_name, route) => {
      const unknownPath = concretePath(route.path);
      const theirs = await send(route, withIdsOfA(unknownPath, route));
      const unknown = await send(route, unknownPath);

      expect({ status: theirs.status, code: errorCode(theirs) }).toEqual({
        status: unknown.status,
        code: errorCode(unknown),
      });
      expect([403, 404]).toContain(theirs.status);
    },
  );

  /**
   * Routes that take another resource's id in their body: B names A's id, and
   * the answer is the one an unknown id gets (a 404 for the thing asked
   * about, a 400 listing it as unknown, or an empty search). These are listed
   * by hand: the table does not say which bodies carry ids.
   */
  const bodyIdCases: ReadonlyArray<
    readonly [name: string, method: string, path: string, body: (ids: Ids) => unknown]
  > = [
    ['query an agent', 'POST', '/api/v1/query', (ids) => ({ agent_id: ids.agt, query: 'Hi?' })],
    [
      'query an agent, streamed',
      'POST',
      '/api/v1/query',
      (ids) => ({ agent_id: ids.agt, query: 'Hi?', stream: true }),
    ],
    [
      'legacy chat with an agent',
      'POST',
      '/api/chat',
      (ids) => ({ agentId: ids.agt, query: 'Hi?' }),
    ],
    [
      'evaluate an agent',
      'POST',
      '/api/v1/evals',
      (ids) => ({ agent_id: ids.agt, name: 'x', questions: [{ question: 'Hi?' }] }),
    ],
    [
      'create an agent on a data source',
      'POST',
      '/api/v1/agents',
      (ids) => ({ name: 'Borrower', data_source_ids: [ids.ds] }),
    ],
    [
      'create a group of an agent',
      'POST',
      '/api/v1/groups',
      (ids) => ({ name: 'Borrowers', agent_ids: [ids.agt] }),
    ],
    [
      'chat completion with an agent as the model (OpenAI-compatible)',
      'POST',
      '/api/v1/openai/chat/completions',
      (ids) => ({ model: ids.agt, messages: [{ role: 'user', content: 'Hi?' }] }),
    ],
    [
      'search a data source',
      'POST',
      '/api/v1/semantic-search',
      (ids) => ({ org_id: b.orgId, query: 'handbook', data_source_ids: [ids.ds] }),
    ],
  ];
  type Ids = { agt: string; ds: string };

  it.each(bodyIdCases)(
    "%s: A's id in the body answers as an unknown id does",
    async (_name, method, path, body) => {
      const theirs = await api(service.url, path, {
        method,
        key: b.key,
        body: body({ agt: idsOfA.get('agt') ?? '', ds: idsOfA.get('ds') ?? '' }),
      });
      const unknown = await api(service.url, path, {
        method,
        key: b.key,
        body: body({
          agt: concretePath('/api/v1/agents/{id}').split('/').at(-1) ?? '',
          ds: concretePath('/x/{id}').split('/').at(-1) ?? '',
        }),
      });

      expect({ status: theirs.status, code: errorCode(theirs) }).toEqual({
        status: unknown.status,
        code: errorCode(unknown),
      });
      if (theirs.status === 200) {
        // A search finds nothing in A's source, as in a source that does not exist.
        expect(json(theirs).chunks).toEqual([]);
        expect(json(theirs).metadata.total_chunks_searched).toBe(0);
      } else expect([400, 404]).toContain(theirs.status);
    },
  );
});
