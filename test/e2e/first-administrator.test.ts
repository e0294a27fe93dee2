import { request as httpRequest } from 'node:http';
import { networkInterfaces } from 'node:os';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { isFromThisMachine } from '../../lib/local/first-administrator';
import { expectNestedError } from '../support/error-shapes';
import { type ApiResponse, api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';

const ADMINISTRATOR = {
  email: 'first@example.com',
  name: 'First Administrator',
  password: 'a long enough password',
};

/** A request with headers fetch will not send as given (Host), over a plain socket. */
function raw(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
) {
  return new Promise<ApiResponse>((resolve, reject) => {
    const sent = httpRequest(
      url,
      { method: init.method ?? 'GET', headers: init.headers },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const headers = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            for (const one of Array.isArray(value) ? value : [value ?? ''])
              headers.append(name, one);
          }
          resolve({
            status: response.statusCode ?? 0,
            headers,
            text,
            body: text ? JSON.parse(text) : null,
          });
        });
      },
    );
    sent.on('error', reject);
    sent.end(init.body);
  });
}

/** This machine's first address that is not loopback (a LAN or container interface). */
function externalIpv4(): string | undefined {
  return Object.values(networkInterfaces())
    .flat()
    .find((address) => address && address.family === 'IPv4' && !address.internal)?.address;
}

const create = (service: TestService, body: unknown = ADMINISTRATOR, headers = {}) =>
  api(service.url, '/api/v1/setup/administrator', { method: 'POST', body, headers });

/** P228: the console's "Create the administrator" page, and the two local-only routes behind it. */
describe('The first administrator (one machine only)', () => {
  describe('on a service nobody can sign in to yet', () => {
    let service: TestService;

    beforeAll(async () => {
      service = await startTestService();
    });
    afterAll(() => service.end());

    it('is offered to this machine, and refuses bad input in the error shape', async () => {
      const offered = await api(service.url, '/api/v1/setup');
      expect(offered.status).toBe(200);
      expect(offered.body).toEqual({ available: true });

      const short = expectNestedError(
        await create(service, { ...ADMINISTRATOR, password: 'short' }),
        400,
        'invalid_request',
      );
      expect(short.message).toContain('password');
      expectNestedError(
        await create(service, { ...ADMINISTRATOR, email: 'not an email' }),
        400,
        'invalid_request',
      );
      expectNestedError(
        await create(service, { email: ADMINISTRATOR.email, password: ADMINISTRATOR.password }),
        400,
        'invalid_request',
      );
      expectNestedError(
        await create(service, { ...ADMINISTRATOR, role: 'readonly' }),
        400,
        'invalid_request',
      );
      expectNestedError(await create(service, 'not json at all'), 400, 'invalid_request');
      // No login CSRF: another site's page cannot make the administrator (P66).
      const crossSite = expectNestedError(
        await create(service, ADMINISTRATOR, { 'sec-fetch-site': 'cross-site' }),
        403,
        'forbidden',
      );
      expect(crossSite.details.reason).toBe('cross_site');
      expect((await api(service.url, '/api/v1/setup')).body).toEqual({ available: true });
    });

    it('is gone for a page that reached 127.0.0.1 under another name (DNS rebinding)', async () => {
      const response = await raw(`${service.url}/api/v1/setup`, {
        headers: { host: 'attacker.example' },
      });
      const created = await raw(`${service.url}/api/v1/setup/administrator`, {
        method: 'POST',
        headers: { host: 'attacker.example', 'content-type': 'application/json' },
        body: JSON.stringify(ADMINISTRATOR),
      });

      expect(expectNestedError(response, 404, 'not_found').message).toContain('No such endpoint');
      expectNestedError(created, 404, 'not_found');
    });

    it('creates an active admin, signs them in, and is then gone for good', async () => {
      const response = await create(service, ADMINISTRATOR, { 'x-forwarded-for': '203.0.113.9' });

      expect(response.status).toBe(200);
      const body = json(response);
      expect(body.user).toMatchObject({
        email: ADMINISTRATOR.email,
        name: ADMINISTRATOR.name,
        role: 'admin',
        status: 'active',
      });
      const cookie = response.headers
        .getSetCookie()
        .find((header) => header.startsWith('svc_session='));
      expect(cookie).toBeDefined();
      const me = await api(service.url, '/api/v1/auth/me', {
        headers: { cookie: cookie?.split(';')[0] ?? '' },
      });
      expect(json(me).access.role).toBe('admin');
      expect(json(me).user.org_id).toBe(service.orgId);

      expect((await api(service.url, '/api/v1/setup')).body).toEqual({ available: false });
      const again = expectNestedError(
        await create(service, { ...ADMINISTRATOR, email: 'second@example.com' }),
        409,
        'invalid_request',
      );
      expect(again.details.reason).toBe('administrator_exists');
      const signIn = await api(service.url, '/api/v1/auth/login', {
        method: 'POST',
        body: { email: ADMINISTRATOR.email, password: ADMINISTRATOR.password },
      });
      expect(signIn.status).toBe(200);
    });
  });

  it('makes one administrator when two pages are submitted at once', async () => {
    const service = await startTestService();
    try {
      const answers = await Promise.all([
        create(service, { ...ADMINISTRATOR, email: 'one@example.com' }),
        create(service, { ...ADMINISTRATOR, email: 'two@example.com' }),
      ]);

      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
      const users = await api(service.url, '/api/v1/users', { key: service.adminKey });
      expect(json(users).total).toBe(1);
    } finally {
      await service.end();
    }
  });

  it('is not offered once SVC_BOOTSTRAP_ADMIN_EMAIL made the administrator', async () => {
    const service = await startTestService({
      env: {
        SVC_BOOTSTRAP_ADMIN_EMAIL: 'boot@example.com',
        SVC_BOOTSTRAP_ADMIN_PASSWORD: ADMINISTRATOR.password,
      },
    });
    try {
      expect((await api(service.url, '/api/v1/setup')).body).toEqual({ available: false });
      expectNestedError(await create(service), 409, 'invalid_request');
      expect(service.runtime.bootstrap.hasUsers).toBe(true);
    } finally {
      await service.end();
    }
  });

  it('is gone for any other address, whatever X-Forwarded-For says', async () => {
    const address = externalIpv4();
    const service = await startTestService({ env: { HOST: '0.0.0.0' } });
    try {
      const port = new URL(service.url).port;
      if (address) {
        const base = `http://${address}:${port}`;
        const spoofed = { 'x-forwarded-for': '127.0.0.1' };
        expectNestedError(
          await raw(`${base}/api/v1/setup`, { headers: spoofed }),
          404,
          'not_found',
        );
        expectNestedError(
          await raw(`${base}/api/v1/setup/administrator`, {
            method: 'POST',
            headers: { ...spoofed, 'content-type': 'application/json', host: `127.0.0.1:${port}` },
            body: JSON.stringify(ADMINISTRATOR),
          }),
          404,
          'not_found',
        );
      }
      // The same decision on the event itself, for machines with no address but loopback.
      const event = (sourceIp: string, host: string) =>
        ({
          headers: { Host: host },
          requestContext: { identity: { sourceIp } },
        }) as unknown as APIGatewayProxyEvent;
      expect(isFromThisMachine(event('127.0.0.1', `127.0.0.1:${port}`))).toBe(true);
      expect(isFromThisMachine(event('::1', `[::1]:${port}`))).toBe(true);
      expect(isFromThisMachine(event('127.0.0.1', `localhost:${port}`))).toBe(true);
      expect(isFromThisMachine(event('192.0.2.10', `127.0.0.1:${port}`))).toBe(false);
      expect(isFromThisMachine(event('127.0.0.1', 'attacker.example'))).toBe(false);
      expect(isFromThisMachine(event('127.0.0.1', ''))).toBe(false);
      // Still usable from the machine itself on the same service.
      expect((await api(`http://127.0.0.1:${port}`, '/api/v1/setup')).body).toEqual({
        available: true,
      });
    } finally {
      await service.end();
    }
  });
});
