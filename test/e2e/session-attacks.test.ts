import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { newId } from '../../layers/core/domain/ids';
import { parseLocalConfig } from '../../lib/local/local-config';
import { startLocalRuntime } from '../../lib/local/runtime';
import { expectNestedError } from '../support/error-shapes';
import { api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { createTenant } from '../support/tenants';
import { createTestUser, signedIn, type TestUser, WebSession } from '../support/web-session';

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('Session tokens under attack (D12: HS256 pinned, our key only)', () => {
  let dataDir: string;
  let service: TestService;
  let user: TestUser;
  let key: Uint8Array;

  const claimsOf = (overrides: Record<string, unknown> = {}) => {
    const now = Math.floor(Date.now() / 1000);
    return {
      sub: user.id,
      org: user.orgId,
      jti: newId('session'),
      iat: now,
      exp: now + 3600,
      auth_time: now,
      ...overrides,
    };
  };
  const sign = (claims: Record<string, unknown>, secret: Uint8Array, alg = 'HS256') =>
    new SignJWT(claims).setProtectedHeader({ alg, typ: 'JWT' }).sign(secret);
  const meWith = (token: string) =>
    api(service.url, '/api/v1/auth/me', { headers: { cookie: `svc_session=${token}` } });

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'svc-session-'));
    service = await startTestService({
      env: { SVC_IN_MEMORY: 'false', SVC_DATA_DIR: dataDir },
    });
    user = await createTestUser(service, { role: 'admin' });
    key = Buffer.from(readFileSync(join(dataDir, 'session.key'), 'utf8').trim(), 'base64');
  });
  afterAll(async () => {
    await service.end();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps a 256-bit signing key under SVC_DATA_DIR, readable by its owner only', () => {
    expect(key.length).toBe(32);
    expect(statSync(join(dataDir, 'session.key')).mode & 0o777).toBe(0o600);
  });

  it('accepts a token signed with that key (the attacks below differ in one thing each)', async () => {
    expect((await meWith(await sign(claimsOf(), key))).status).toBe(200);
  });

  it.each([
    ['alg none', async () => `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claimsOf())}.`],
    ['HS512 with the right key', async () => sign(claimsOf(), key, 'HS512')],
    ['HS256 with another key', async () => sign(claimsOf(), randomBytes(32))],
    [
      'RS256 (an asymmetric algorithm)',
      async () => {
        const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
        return new SignJWT(claimsOf())
          .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
          .sign(privateKey);
      },
    ],
    [
      'HS256 keyed with an RSA public key (algorithm confusion)',
      async () => {
        const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
        const pem = publicKey.export({ type: 'spki', format: 'pem' });
        return sign(claimsOf(), Buffer.from(pem));
      },
    ],
    [
      'an expired token',
      async () => {
        const past = Math.floor(Date.now() / 1000) - 8 * 24 * 3600;
        return sign(claimsOf({ iat: past, auth_time: past, exp: past + 3600 }), key);
      },
    ],
    [
      'a tampered payload (another user, same signature)',
      async () => {
        const [header, , signature] = (await sign(claimsOf(), key)).split('.');
        return `${header}.${b64url(claimsOf({ sub: newId('user') }))}.${signature}`;
      },
    ],
    [
      'an exp past 30 days from sign-in',
      async () => {
        const now = Math.floor(Date.now() / 1000);
        return sign(claimsOf({ exp: now + 31 * 24 * 3600 }), key);
      },
    ],
    [
      'a token without auth_time',
      async () => {
        const { auth_time: _, ...claims } = claimsOf();
        return sign(claims, key);
      },
    ],
    [
      'a token of a user that does not exist',
      async () => sign(claimsOf({ sub: newId('user') }), key),
    ],
    [
      "a user's id under another organization",
      async () => sign(claimsOf({ org: newId('organization') }), key),
    ],
    ['not a JWT at all', async () => 'not-a-token'],
  ])('refuses %s with 401 and clears the cookie', async (_, forge) => {
    const response = await meWith(await forge());

    expectNestedError(response, 401, 'unauthorized');
    expect(response.headers.getSetCookie().join()).toMatch(/svc_session=;.*Max-Age=0/);
  });

  it("refuses a revoked session's token, which is otherwise valid", async () => {
    const browser = await signedIn(service, user);
    const token = browser.token ?? '';
    await browser.request('/api/v1/auth/logout', { method: 'DELETE' });

    expectNestedError(await meWith(token), 401, 'unauthorized');
  });

  it('keeps working across a restart: the key is read back, not made anew', async () => {
    const browser = await signedIn(service, user);
    await service.end();
    const restarted = await startLocalRuntime(
      parseLocalConfig({
        HOST: '127.0.0.1',
        PORT: '0',
        SVC_DYNAMODB_PORT: '0',
        SVC_WORKER_INTERVAL_MS: '0',
        SVC_DATA_DIR: dataDir,
      }),
    );
    service = { ...service, runtime: restarted, url: restarted.url, end: () => restarted.end() };
    const again = new WebSession(restarted.url);
    again.jar.cookies.set('svc_session', { value: browser.token ?? '', attributes: {} });

    expect((await again.request('/api/v1/auth/me')).status).toBe(200);
  });

  it("never lets one organization's user reach another's resources", async () => {
    const other = await createTenant(service);
    const created = await api(service.url, '/api/v1/agents', {
      method: 'POST',
      key: other.key,
      body: { name: 'Theirs', data_source_ids: [] },
    });
    const theirs = json(created).id as string;
    const browser = await signedIn(service, user);

    const read = await browser.request(`/api/v1/agents/${theirs}`);
    const change = await browser.request(`/api/v1/agents/${theirs}`, {
      method: 'PUT',
      body: { name: 'Mine now' },
    });
    const list = await browser.request('/api/v1/agents');

    expectNestedError(read, 404, 'not_found');
    expectNestedError(change, 404, 'not_found');
    expect(json(list).agents.map((agent: { id: string }) => agent.id)).not.toContain(theirs);
  });

  it('prefers an Authorization header to a cookie (a key request is judged as a key)', async () => {
    const browser = new WebSession(service.url);
    await browser.signIn(user.email, user.password);

    const response = await api(service.url, '/api/v1/agents', {
      headers: { cookie: browser.jar.header() ?? '', authorization: 'Bearer svcsk_test_nonsense' },
    });

    expectNestedError(response, 401, 'unauthorized');
  });
});
