/**
 * What the specs do over HTTP beside the browser: sign in as a user (a
 * cookie and the CSRF token, D12) and call the API as them, e.g. an
 * administrator inviting someone (P65: users are created by a signed-in
 * admin, never a key).
 */
/**
 * The specs of one worker share a runtime, and with it the admin's and the
 * key's rate buckets (D16, P63): a setup call the service slows down waits
 * the `Retry-After` it is told and asks again, as a well-behaved client does.
 * Only the specs' own setup goes through this; what a screen shows for a 429
 * is tested with faked answers.
 */
export async function patientFetch(url: string, init: RequestInit): Promise<Response> {
  for (let attempt = 1; ; attempt += 1) {
    const response = await fetch(url, init);
    if (response.status !== 429 || attempt === 6) return response;
    const wait = Math.min(Number(response.headers.get('retry-after') ?? '1') || 1, 20);
    await new Promise((resolve) => setTimeout(resolve, wait * 1000));
  }
}

export class ApiSession {
  private constructor(
    private readonly base: string,
    private readonly cookie: string,
    private readonly csrfToken: string,
  ) {}

  static async signIn(base: string, email: string, password: string): Promise<ApiSession> {
    const response = await fetch(`${base}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    if (!response.ok)
      throw new Error(`sign-in failed: ${response.status} ${await response.text()}`);
    const body = (await response.json()) as { csrf_token: string };
    const cookie = response.headers
      .getSetCookie()
      .map((header) => header.split(';')[0])
      .join('; ');
    return new ApiSession(base, cookie, body.csrf_token);
  }

  async call<T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<T> {
    const response = await patientFetch(`${this.base}${path}`, {
      method,
      headers: {
        Cookie: this.cookie,
        'X-CSRF-Token': this.csrfToken,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!response.ok)
      throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return (response.status === 204 ? undefined : await response.json()) as T;
  }

  /** A user invited now (P61): their invitation token, as the create response returns it once. */
  async invite(email: string, name: string, role: string): Promise<{ id: string; token: string }> {
    const created = await this.call<{ id: string; invitation: { token: string } }>(
      'POST',
      '/api/v1/users',
      { email, name, role },
    );
    return { id: created.id, token: created.invitation.token };
  }

  /** A new API key (D11: keys are made by a signed-in admin); each key has rate buckets of its own (D16). */
  async createKey(name: string): Promise<string> {
    const created = await this.call<{ key: string }>('POST', '/api/v1/keys', {
      name,
      scopes: ['Write', 'Read'],
    });
    return created.key;
  }
}

/** Creates an agent with the Admin key (agents may be made by keys). */
export async function createAgentWithKey(base: string, key: string, name: string): Promise<void> {
  const response = await patientFetch(`${base}/api/v1/agents`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name, data_source_ids: [] }),
  });
  if (!response.ok) throw new Error(`create agent: ${response.status} ${await response.text()}`);
}

/** A call with an API key (D11), for data the specs set up beside the browser. */
export async function callWithKey<T = Record<string, unknown>>(
  base: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  const response = await patientFetch(`${base}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) {
    throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  }
  return (response.status === 204 ? undefined : await response.json()) as T;
}

/**
 * A published knowledge-base article (D32), indexed: the runtime's sync
 * worker (every 200 ms under `npm start`) indexes it off the sync queue;
 * this waits until the built-in `kb` data source holds its chunks. Returns
 * that data source's id.
 */
export async function publishIndexedArticle(
  base: string,
  key: string,
  article: { title: string; content: string },
): Promise<string> {
  const kb = await callWithKey<{ data_source_id: string }>(base, key, 'GET', '/api/v1/kb');
  const before = await callWithKey<{ chunks_indexed: number }>(
    base,
    key,
    'GET',
    `/api/v1/data-sources/${kb.data_source_id}`,
  );
  await callWithKey(base, key, 'POST', '/api/v1/kb', { ...article, status: 'published' });
  for (const started = Date.now(); Date.now() - started < 20_000; ) {
    const source = await callWithKey<{ chunks_indexed: number }>(
      base,
      key,
      'GET',
      `/api/v1/data-sources/${kb.data_source_id}`,
    );
    if (source.chunks_indexed > before.chunks_indexed) return kb.data_source_id;
    await new Promise((done) => setTimeout(done, 200));
  }
  throw new Error('the knowledge-base article was not indexed within 20 s');
}

/** A user who accepted an invitation with `role` (P61), ready to sign in. */
export async function invitedUser(
  admin: ApiSession,
  base: string,
  role: string,
  name: string,
): Promise<{ id: string; email: string; password: string }> {
  const email = `${name.toLowerCase().replace(/\W+/g, '-')}-${Date.now()}@console.test`;
  const invited = await admin.invite(email, name, role);
  const password = `a ${role} password`;
  const accepted = await fetch(`${base}/api/v1/auth/invitations/accept`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ token: invited.token, password }),
  });
  if (!accepted.ok) throw new Error(`accept: ${accepted.status} ${await accepted.text()}`);
  return { id: invited.id, email, password };
}
