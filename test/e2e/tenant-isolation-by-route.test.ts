import type { Route } from '../../layers/core/http/route';
import { ROUTES } from '../../layers/core/http/routes/route-table';
import { bodyIdFields } from '../support/body-id-fields';
import { createAgent, createDataSource } from '../support/fixtures';
import { type ApiResponse, api, json } from '../support/http-client';
import { concretePath, unknownId } from '../support/ids';
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
  conversations: 'sess',
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
  if (route.method === 'POST' && /\/\{id\}\/documents\/delete$/.test(route.path))
    return { document_ids: ['doc_00000000000000000000000000'] };
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

const nameOf = (route: Route): string => `${route.method} ${route.path}`;

/** Where a body names a resource: filled with A's id, then with an unknown id of the same kind. */
const THE_ID = '<the id>';
/** Where a body needs B's own agent or organization to be valid. */
const OWN_AGENT = '<own agent>';
const OWN_ORG = '<own organization>';

/** The kind of id a body field holds, by the field's name. */
const ID_KIND_BY_FIELD: Readonly<Record<string, Parameters<typeof unknownId>[0]>> = {
  agent_id: 'agt',
  agent_ids: 'agt',
  // The OpenAI-compatible chat names the agent as the model.
  model: 'agt',
  data_source_ids: 'ds',
  document_ids: 'doc',
  model_key_id: 'mk',
  session_id: 'sess',
  interaction_id: 'int',
  org_id: 'org',
};

const kindOfField = (field: string) => ID_KIND_BY_FIELD[field.split('.').at(-1) ?? ''];

/** Body fields named like ids that name nothing of another organization, with why. */
const NOT_A_RESOURCE_OF_OURS: Readonly<Record<string, string>> = {
  'PUT /api/v1/organizations/{id}/sso oidc.client_id':
    'The client id the identity provider gave the organization: its own setting, not a resource of ours.',
  'PUT /api/v1/organizations/{id}/sso saml.idp_entity_id':
    "The identity provider's entity id: the organization's own setting.",
};

/** A's agent, data source and the rest, for the bodies of each route (each names THE_ID once). */
const agentBodies = (name: string) => [
  { name, data_source_ids: [THE_ID] },
  { name, model_key_id: THE_ID },
];
const queryBodies = (chat: boolean) => [
  { agent_id: THE_ID, query: 'Hi?' },
  ...(chat ? [] : [{ agent_id: THE_ID, query: 'Hi?', stream: true }]),
  { agent_id: OWN_AGENT, query: 'Hi?', session_id: THE_ID },
];
const searchBodies = [
  { org_id: THE_ID, query: 'handbook' },
  { org_id: OWN_ORG, query: 'handbook', data_source_ids: [THE_ID] },
];
const BODIES_NAMING_AN_ID: Readonly<Record<string, readonly unknown[]>> = {
  'POST /api/v1/agents': agentBodies('Borrower'),
  'PUT /api/v1/agents/{id}': agentBodies('Borrower'),
  'POST /api/ai-agent-managers': agentBodies('Borrower'),
  'PUT /api/ai-agent-managers/{id}': agentBodies('Borrower'),
  'POST /api/v1/query': queryBodies(false),
  'POST /api/chat': queryBodies(true),
  'POST /api/v1/semantic-search': searchBodies,
  'POST /api/semantic-search': searchBodies,
  'POST /api/interactions/feedback': [{ interaction_id: THE_ID, feedback: 'negative' }],
  'POST /api/v1/groups': [{ name: 'Borrowers', agent_ids: [THE_ID] }],
  'PUT /api/v1/groups/{id}': [{ agent_ids: [THE_ID] }],
  'POST /api/groups': [{ name: 'Borrowers', agent_ids: [THE_ID] }],
  'PUT /api/groups/{id}': [{ agent_ids: [THE_ID] }],
  'POST /api/v1/openai/chat/completions': [
    { model: THE_ID, messages: [{ role: 'user', content: 'Hi?' }] },
  ],
  'POST /api/v1/data-sources/{id}/documents/delete': [{ document_ids: [THE_ID] }],
  'POST /api/v1/evals': [
    { agent_id: THE_ID, name: 'x', questions: [{ question: 'Hi?' }] },
    { agent_id: OWN_AGENT, name: 'x', from_interactions: { agent_id: THE_ID } },
  ],
};

/**
 * Fields where an unknown id is no error: the request goes on as if the
 * field named nothing (a search of no source, a new conversation).
 */
const ANSWERS_AN_UNKNOWN_ID: readonly string[] = [
  'POST /api/v1/query session_id',
  'POST /api/chat session_id',
  'POST /api/v1/semantic-search data_source_ids',
  'POST /api/semantic-search data_source_ids',
];

/** The dotted path of THE_ID in a body (`from_interactions.agent_id`; an array adds nothing). */
function fieldOfTheId(body: unknown, prefix = ''): string {
  if (Array.isArray(body)) {
    for (const item of body) {
      const found = fieldOfTheId(item, prefix);
      if (found) return found;
    }
    return body.includes(THE_ID) ? prefix : '';
  }
  if (body === null || typeof body !== 'object') return '';
  for (const [name, value] of Object.entries(body)) {
    const path = prefix ? `${prefix}.${name}` : name;
    if (value === THE_ID) return path;
    const found = fieldOfTheId(value, path);
    if (found) return found;
  }
  return '';
}

/** The body with each placeholder replaced, at any depth. */
function withPlaceholders(body: unknown, values: Readonly<Record<string, string>>): unknown {
  if (typeof body === 'string') return values[body] ?? body;
  if (Array.isArray(body)) return body.map((item) => withPlaceholders(item, values));
  if (body === null || typeof body !== 'object') return body;
  return Object.fromEntries(
    Object.entries(body).map(([name, value]) => [name, withPlaceholders(value, values)]),
  );
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
  /** B's own agent and group, for the routes that change one of B's with a body naming A's id. */
  const ownIdsOfB = new Map<string, string>();

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
      ['sess', interaction.metadata?.session_id],
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
    ownIdsOfB.set(
      'agt',
      (await createAgent(service, b.key, { name: 'Agent of B', data_source_ids: [] })).id,
    );
    const groupOfB = await api(service.url, '/api/v1/groups', {
      method: 'POST',
      key: b.key,
      body: { name: 'Group of B' },
    });
    ownIdsOfB.set('grp', json(groupOfB).id);
    paramsOfA.set('doc', ticket.document_id);
    idsOfA.set('doc', ticket.document_id);
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
    (route) => !(nameOf(route) in NAMES_AN_ORGANIZATION_BY_DESIGN),
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
   * Every body field that names a resource (read from the route's zod body
   * schema: a name ending in `_id` or `_ids`, at any depth) is checked: B
   * names A's id there, and the answer is the one an unknown id of the same
   * kind gets. The bodies are written here, since a valid body needs more
   * than its id; a route whose schema gains an id field without a body here
   * fails the first test below. Public routes are left out: signing in names
   * an organization by design, with no organization of the caller's to cross.
   */
  const bodyIdRoutes = ROUTES.filter((route) => route.access !== 'public').flatMap((route) =>
    bodyIdFields(route)
      .filter((field) => !(`${nameOf(route)} ${field}` in NOT_A_RESOURCE_OF_OURS))
      .map((field) => ({ route, field })),
  );

  it('has a body for every body field that names a resource, each of a known id kind', () => {
    const needed = bodyIdRoutes.map(({ route, field }) => `${nameOf(route)} ${field}`).sort();
    const written = Object.entries(BODIES_NAMING_AN_ID)
      .flatMap(([name, bodies]) => bodies.map((body) => `${name} ${fieldOfTheId(body)}`))
      .sort();

    expect(needed.length).toBeGreaterThan(15);
    expect([...new Set(written)]).toEqual([...new Set(needed)]);
    const ofUnknownKind = bodyIdRoutes.filter(({ field }) => kindOfField(field) === undefined);
    expect(ofUnknownKind.map(({ route, field }) => `${nameOf(route)} ${field}`)).toEqual([]);
    for (const name of Object.keys(NOT_A_RESOURCE_OF_OURS)) {
      const [method, path, field] = name.split(' ');
      const route = ROUTES.find(
        (candidate) => candidate.method === method && candidate.path === path,
      );
      expect({ name, fields: route ? bodyIdFields(route) : [] }).toEqual({
        name,
        fields: expect.arrayContaining([field]),
      });
    }
  });

  const bodyCases = Object.entries(BODIES_NAMING_AN_ID).flatMap(([name, bodies]) =>
    bodies.map((body) => [`${name} ${fieldOfTheId(body)}`, name, body] as const),
  );

  it.each(bodyCases)(
    "%s: A's id in the body answers as an unknown id does",
    async (_case, name, body) => {
      const route = ROUTES.find((candidate) => nameOf(candidate) === name);
      if (!route) throw new Error(`No route ${name}`);
      const field = fieldOfTheId(body);
      const kind = kindOfField(field);
      const ofA = kind === undefined ? undefined : idsOfA.get(kind);
      if (!kind || !ofA) throw new Error(`No id of A for ${field}`);
      const path = route.path.replace(
        '{id}',
        ownIdsOfB.get(ID_KIND_BY_COLLECTION[collectionOf(route) ?? ''] ?? '') ?? '',
      );
      const sendWith = (id: string) => {
        const filled = withPlaceholders(body, {
          [THE_ID]: id,
          [OWN_AGENT]: ownIdsOfB.get('agt') ?? '',
          [OWN_ORG]: b.orgId,
        });
        return route.access === 'session'
          ? bAdmin.request(path, { method: route.method, body: filled })
          : api(service.url, path, { method: route.method, key: b.key, body: filled });
      };

      const unknownIdSent = unknownId(kind);
      const theirs = await sendWith(ofA);
      const unknown = await sendWith(unknownIdSent);

      expect({ status: theirs.status, code: errorCode(theirs) }).toEqual({
        status: unknown.status,
        code: errorCode(unknown),
      });
      if (theirs.status < 300) {
        // Admitted as an unknown id is (a search of nothing, a new conversation of B's): A's id
        // comes back only where the answer repeats what B sent, as the unknown id does.
        const echoes = (response: ApiResponse, id: string) =>
          JSON.stringify(response.body).split(id).length - 1;
        expect(echoes(theirs, ofA)).toBe(echoes(unknown, unknownIdSent));
        expect(ANSWERS_AN_UNKNOWN_ID).toContain(`${name} ${field}`);
        if (/semantic-search/.test(name)) expect(json(theirs).chunks).toEqual([]);
      } else expect([400, 403, 404]).toContain(theirs.status);
    },
  );
});
