import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { compileIpAllowlist } from '../../layers/core/domain/ip-allowlist';
import { NO_FIXED_ADDRESSES_REASON } from '../../layers/core/domain/webhook-source-addresses';
import { expectNestedError, expectSecurityHeaders } from '../support/error-shapes';
import { api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { createWebhook, LOCAL_RECEIVERS_ENV } from '../support/webhooks';

const PATH = '/api/v1/webhooks/source-ips';

/** A receiver that notes the address each request came from. */
async function addressRecorder(): Promise<{ url: string; from: string[]; close(): Promise<void> }> {
  const from: string[] = [];
  const server: Server = createServer((request, response) => {
    from.push(request.socket.remoteAddress ?? '');
    request.resume();
    request.on('end', () => response.writeHead(200).end('ok'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    from,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('GET /api/v1/webhooks/source-ips: where deliveries come from (P240, P241)', () => {
  describe('on one machine with the default setting', () => {
    let service: TestService;
    beforeAll(async () => {
      service = await startTestService({ env: { ...LOCAL_RECEIVERS_ENV } });
    });
    afterAll(() => service.end());

    it('answers loopback without any credential, in the stable shape, cacheable for five minutes', async () => {
      const response = await api(service.url, PATH);

      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        fixed: true,
        cidrs: ['127.0.0.1/32', '::1/128'],
        updated_at: null,
        reason: null,
      });
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(response.headers.get('cache-control')).toBe('public, max-age=300');
      expectSecurityHeaders(response);
      // Nobody signs in here: no cookie, no rate-limit bucket of a key, no deprecation.
      expect(response.headers.get('set-cookie')).toBeNull();
      expect(response.headers.get('x-ratelimit-limit')).toBeNull();
      expect(response.headers.get('deprecation')).toBeNull();
    });

    it('answers the same whatever credential comes along, even a wrong one', async () => {
      const withKey = await api(service.url, PATH, { key: service.adminKey });
      const withWrongKey = await api(service.url, PATH, { key: 'svcsk_test_not-a-key' });
      const withCookie = await api(service.url, PATH, {
        headers: { cookie: 'svc_session=forged' },
      });

      for (const response of [withKey, withWrongKey, withCookie]) {
        expect({ status: response.status, fixed: json(response).fixed }).toEqual({
          status: 200,
          fixed: true,
        });
        expect(response.headers.get('set-cookie')).toBeNull();
      }
    });

    it('refuses unknown or repeated query parameters with 400 (P2)', async () => {
      const unknown = await api(service.url, `${PATH}?format=text`);
      const repeated = await api(service.url, `${PATH}?limit=1&limit=2`);

      expect(expectNestedError(unknown, 400, 'invalid_request').details.unknown_fields).toEqual([
        'format',
      ]);
      expectNestedError(repeated, 400, 'invalid_request');
    });

    it('serves GET only, naming it in Allow', async () => {
      const posted = await api(service.url, PATH, { method: 'POST', body: {} });

      expectNestedError(posted, 405, 'invalid_request');
      expect(posted.headers.get('allow')).toBe('GET');
    });

    it('leaves GET /api/v1/webhooks/{id} to the webhooks it names, behind a key', async () => {
      const anonymous = await api(service.url, '/api/v1/webhooks/wh_01m8f2150dvxm0fajyq7e358ab');
      const withKey = await api(service.url, '/api/v1/webhooks/wh_01m8f2150dvxm0fajyq7e358ab', {
        key: service.adminKey,
      });
      // The legacy family has no such path: there it is a webhook id, and needs a key.
      const legacy = await api(service.url, '/api/webhooks/source-ips');

      expect(anonymous.status).toBe(401);
      expect(withKey.status).toBe(404);
      expect(legacy.status).toBe(401);
    });

    it('publishes the address the test event really comes from', async () => {
      const receiver = await addressRecorder();
      try {
        const webhook = await createWebhook(service, service.adminKey, {
          url: receiver.url,
          events: ['data_source.synced'],
        });
        const test = await api(service.url, `/api/v1/webhooks/${webhook.id}/test`, {
          method: 'POST',
          key: service.adminKey,
        });
        const published = json(await api(service.url, PATH)).cidrs as string[];

        expect(json(test).delivered).toBe(true);
        const allowlist = compileIpAllowlist(published);
        expect(receiver.from.length).toBeGreaterThan(0);
        for (const address of receiver.from) {
          expect({ address, allowed: allowlist?.allows(address) }).toEqual({
            address,
            allowed: true,
          });
        }
      } finally {
        await receiver.close();
      }
    });
  });

  it('answers the machine’s own setting and when it changed (SVC_WEBHOOK_SOURCE_IPS)', async () => {
    const service = await startTestService({
      env: {
        SVC_WEBHOOK_SOURCE_IPS: '192.0.2.10/32,2001:DB8::10/128',
        SVC_WEBHOOK_SOURCE_IPS_CHANGED_AT: '2026-11-01T09:30:00+01:00',
      },
    });
    try {
      const response = await api(service.url, PATH);

      expect(response.body).toEqual({
        fixed: true,
        cidrs: ['192.0.2.10/32', '2001:db8::10/128'],
        updated_at: '2026-11-01T08:30:00.000Z',
        reason: null,
      });
    } finally {
      await service.end();
    }
  });

  it('says there are no fixed addresses, and why, when the list is empty (as in a cloud deployment without its VPC)', async () => {
    const service = await startTestService({ env: { SVC_WEBHOOK_SOURCE_IPS: '' } });
    try {
      const response = await api(service.url, PATH);

      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        fixed: false,
        cidrs: [],
        updated_at: null,
        reason: NO_FIXED_ADDRESSES_REASON,
      });
    } finally {
      await service.end();
    }
  });
});
