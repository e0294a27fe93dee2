import { ApiError } from '../../src/api/api-error';
import { createApiClient, unwrap } from '../../src/api/client';
import { type LocalService, startLocalService } from '../support/local-service';

const ADMIN = { email: 'client@console.test', password: 'a long enough password' };

/** fetch as a browser on the console's origin: the cookies the service sets go back with every call. */
function browserFetch() {
  const cookies = new Map<string, string>();
  return async (request: Request): Promise<Response> => {
    const headers = new Headers(request.headers);
    if (cookies.size > 0) {
      headers.set('cookie', [...cookies].map(([name, value]) => `${name}=${value}`).join('; '));
    }
    const body = request.body ? await request.text() : undefined;
    const response = await fetch(request.url, { method: request.method, headers, body });
    for (const header of response.headers.getSetCookie()) {
      const [pair = ''] = header.split(';');
      const [name = '', value = ''] = pair.split('=');
      if (/max-age=0/i.test(header)) cookies.delete(name);
      else cookies.set(name, value);
    }
    return response;
  };
}

/** The ApiError a call fails with (the test fails if it succeeds). */
async function refusal(call: Promise<unknown>): Promise<ApiError> {
  try {
    await call;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('the call succeeded');
}

/** The console's API client and its error wrapper, against the real local runtime. */
describe('the API client', () => {
  let service: LocalService;

  beforeAll(async () => {
    service = await startLocalService({ admin: ADMIN });
  }, 90_000);
  afterAll(() => service.stop());

  function client(options: { csrf?: boolean } = {}) {
    let token: string | null = null;
    const expired: string[] = [];
    const api = createApiClient({
      baseUrl: service.url,
      fetch: browserFetch(),
      csrfToken: () => (options.csrf === false ? null : token),
      onUnauthorized: () => expired.push('expired'),
    });
    const signIn = async () => {
      const session = await unwrap(
        api.POST('/api/v1/auth/login', { body: { email: ADMIN.email, password: ADMIN.password } }),
      );
      token = session.csrf_token;
      return session;
    };
    return { api, expired, signIn };
  }

  it('signs in, reads as the user, and sends the CSRF token with changes (P66)', async () => {
    const { api, signIn } = client();
    const session = await signIn();

    const me = await unwrap(api.GET('/api/v1/auth/me'));
    expect(me.user.email).toBe(ADMIN.email);
    expect(me.csrf_token).toBe(session.csrf_token);
    expect(me.organization.name).toBe('Local organization');
    await unwrap(api.POST('/api/v1/auth/refresh'));
    await unwrap(api.DELETE('/api/v1/auth/logout'));
  });

  it('sends the CSRF token with oauth/start, a GET that changes state (P216)', async () => {
    const { api, signIn } = client();
    await signIn();
    const source = await unwrap(
      api.POST('/api/v1/data-sources', {
        body: {
          type: 'confluence',
          name: 'Wiki',
          config: { base_url: 'https://acme.atlassian.net', space_keys: ['ENG'] },
        },
      }),
    );

    const refused = await refusal(
      unwrap(
        api.GET('/api/v1/data-sources/{id}/oauth/start', {
          params: { path: { id: source.id } },
          headers: { Accept: 'application/json' },
        }),
      ),
    );

    // Past the CSRF check (a 403 csrf_token_missing without the token), to the missing app's 409.
    expect(refused.status).toBe(409);
    expect(refused.serverMessage).toMatch(/not configured|SVC_CONFLUENCE_CLIENT_ID/);
  });

  it('without the CSRF token a change is refused, with the reason', async () => {
    const { api, signIn } = client({ csrf: false });
    await signIn();

    const refused = await refusal(unwrap(api.DELETE('/api/v1/auth/logout')));

    expect(refused.status).toBe(403);
    expect(refused.requestId).toMatch(/^req_/);
  });

  it('a wrong password is a 401 for the page to show, not a session that ended', async () => {
    const { api, expired } = client();

    const refused = await refusal(
      unwrap(
        api.POST('/api/v1/auth/login', {
          body: { email: ADMIN.email, password: 'not the password' },
        }),
      ),
    );

    expect(refused.status).toBe(401);
    expect(refused.code).toBe('unauthorized');
    expect(expired).toEqual([]);
  });

  it('a 401 anywhere else means the session ended', async () => {
    const { api, expired } = client();

    const refused = await refusal(unwrap(api.GET('/api/v1/agents')));

    expect(refused.status).toBe(401);
    expect(refused.message).toBe('Your session has ended: sign in again.');
    expect(expired).toEqual(['expired']);
  });

  it('a 400 names the fields that are wrong', async () => {
    const { api } = client();

    const refused = await refusal(
      unwrap(
        api.POST('/api/v1/auth/invitations/accept', {
          body: { token: 'svcinv_x', password: 'short' },
        }),
      ),
    );

    expect(refused.status).toBe(400);
    expect(refused.fields.map((field) => field.path)).toContain('password');
    expect(refused.message).toContain('password');
  });

  it('a throttled sign-in says how long to wait (P62: 10 failures per account)', async () => {
    const { api } = client();
    let refused: ApiError | undefined;
    for (let attempt = 0; attempt < 12 && !refused?.retryAfter; attempt += 1) {
      refused = await refusal(
        unwrap(
          api.POST('/api/v1/auth/login', {
            body: { email: 'throttled@console.test', password: 'wrong password' },
          }),
        ),
      );
    }

    expect(refused?.status).toBe(429);
    expect(refused?.reason).toBe('login_attempts');
    expect(refused?.retryAfter).toBeGreaterThan(0);
    expect(refused?.message).toMatch(/^Too many sign-in attempts: try again in \d+ (min|s)/);
  });

  it('reads the flat shape of legacy paths', async () => {
    const response = await fetch(`${service.url}/api/auth/me`);
    const error = ApiError.from(await response.json(), response);

    expect(error.status).toBe(401);
    expect(error.serverMessage).not.toBe('');
    expect(error.requestId).toMatch(/^req_/);
  });

  it('no answer at all is "cannot be reached", without a reference', async () => {
    const api = createApiClient({
      baseUrl: 'http://127.0.0.1:9',
      csrfToken: () => null,
      onUnauthorized: () => undefined,
    });

    const refused = await refusal(unwrap(api.GET('/api/v1/auth/me')));

    expect(refused.status).toBe(0);
    expect(refused.code).toBe('unreachable');
    expect(refused.message).toContain('cannot be reached');
    expect(refused.requestId).toBeNull();
  });
});
