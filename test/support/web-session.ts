import type { Role } from '../../layers/core/domain/user';
import { createUser } from '../../layers/core/use-cases/users/user-use-cases';
import { type ApiRequest, type ApiResponse, api, json } from './http-client';
import type { TestService } from './local-service';

/** One cookie as a browser keeps it: its value and the attributes it was set with. */
export interface StoredCookie {
  readonly value: string;
  readonly attributes: Readonly<Record<string, string | true>>;
}

/** Parses one `Set-Cookie` header value (RFC 6265 §5.2, as far as these tests need). */
export function parseSetCookie(header: string): { name: string } & StoredCookie {
  const [pair = '', ...parts] = header.split(';');
  const separator = pair.indexOf('=');
  const attributes: Record<string, string | true> = {};
  for (const part of parts) {
    const index = part.indexOf('=');
    const name = (index < 0 ? part : part.slice(0, index)).trim().toLowerCase();
    attributes[name] = index < 0 ? true : part.slice(index + 1).trim();
  }
  return {
    name: pair.slice(0, separator).trim(),
    value: pair.slice(separator + 1).trim(),
    attributes,
  };
}

/**
 * A browser's cookie jar for one site, reduced to what the service sets:
 * cookies arrive by `Set-Cookie` (a `Max-Age` of 0 or less removes one) and
 * go back in `Cookie`. The Secure flag is honoured as browsers do on
 * localhost: 127.0.0.1 counts as a secure context.
 */
export class CookieJar {
  readonly cookies = new Map<string, StoredCookie>();

  store(response: ApiResponse): void {
    for (const header of response.headers.getSetCookie()) {
      const { name, ...cookie } = parseSetCookie(header);
      const maxAge = cookie.attributes['max-age'];
      if (typeof maxAge === 'string' && Number(maxAge) <= 0) this.cookies.delete(name);
      else this.cookies.set(name, cookie);
    }
  }

  /** The `Cookie` header: every cookie, or with `path` only those a browser sends there (RFC 6265 §5.1.4). */
  header(path?: string): string | undefined {
    const sent = [...this.cookies].filter(([, cookie]) => {
      const scope = cookie.attributes.path;
      if (path === undefined || typeof scope !== 'string' || scope === '/') return true;
      return path === scope || path.startsWith(scope.endsWith('/') ? scope : `${scope}/`);
    });
    if (sent.length === 0) return undefined;
    return sent.map(([name, cookie]) => `${name}=${cookie.value}`).join('; ');
  }

  get(name: string): StoredCookie | undefined {
    return this.cookies.get(name);
  }
}

/** A signed-in browser: its cookies and the CSRF token the sign-in gave (D12). */
export class WebSession {
  readonly jar = new CookieJar();
  csrfToken: string | undefined;

  constructor(readonly baseUrl: string) {}

  /** A request as the web application sends it: cookies, and the CSRF token on state changes. */
  async request(path: string, request: Omit<ApiRequest, 'key'> = {}): Promise<ApiResponse> {
    const method = (request.method ?? 'GET').toUpperCase();
    const headers: Record<string, string> = {};
    const cookie = this.jar.header();
    if (cookie) headers.cookie = cookie;
    if (method !== 'GET' && this.csrfToken) headers['x-csrf-token'] = this.csrfToken;
    const response = await api(this.baseUrl, path, {
      ...request,
      headers: { ...headers, ...request.headers },
    });
    this.jar.store(response);
    const csrf = json(response).csrf_token;
    if (typeof csrf === 'string') this.csrfToken = csrf;
    return response;
  }

  signIn(email: string, password: string, extra: Record<string, unknown> = {}) {
    return this.request('/api/v1/auth/login', {
      method: 'POST',
      body: { email, password, ...extra },
    });
  }

  get token(): string | undefined {
    return this.jar.get('svc_session')?.value;
  }
}

export interface TestUser {
  readonly id: string;
  readonly orgId: string;
  readonly email: string;
  readonly password: string;
  readonly role: Role;
}

let counter = 0;

/** A user with a password already set, made as the operator's CLI makes one (no invitation). */
export async function createTestUser(
  service: TestService,
  options: { readonly orgId?: string; readonly role?: Role; readonly email?: string } = {},
): Promise<TestUser> {
  counter += 1;
  const orgId = options.orgId ?? service.orgId;
  const email = options.email ?? `user${counter}-${Date.now()}@example.com`;
  const password = `correct horse battery ${counter}`;
  const role = options.role ?? 'admin';
  const { user } = await createUser(service.runtime.dependencies, orgId, {
    email,
    name: `User ${counter}`,
    role,
    password,
  });
  return { id: user.id, orgId, email, password, role };
}

/** A browser signed in as `user`. */
export async function signedIn(service: TestService, user: TestUser): Promise<WebSession> {
  const session = new WebSession(service.url);
  // P211: the organization is named, so an address used in several organizations signs in to this one.
  const response = await session.signIn(user.email, user.password, { org_id: user.orgId });
  if (response.status !== 200) {
    throw new Error(`sign-in failed: ${response.status} ${response.text}`);
  }
  return session;
}
