import { type ConnectionRecorder, recordConnectionAttempts } from '../support/connection-attempts';
import { expectFlatError, expectNestedError, fieldPaths } from '../support/error-shapes';
import { api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { createTenant } from '../support/tenants';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';
import {
  closedPort,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../support/webhook-receiver';
import { createWebhook, LOCAL_RECEIVERS_ENV } from '../support/webhooks';
import {
  expectUrlRefused,
  ISO_MS,
  LEGACY,
  SECRET,
  V1,
  WEBHOOK_FIELDS,
} from './webhooks-management-shared';

/**
 * Webhook management (D30): create, read, update, delete, list, rotate, on
 * `/api/v1/webhooks` and the legacy `/api/webhooks`, with the URL rules
 * checked at create and update against real loopback receivers.
 */
describe('Webhook management (local receivers allowed, test CA trusted)', () => {
  const clock = new TestClock();
  let service: TestService;
  let trusted: WebhookReceiver;
  let selfSigned: WebhookReceiver;
  let expired: WebhookReceiver;
  let plain: WebhookReceiver;

  beforeAll(async () => {
    [trusted, selfSigned, expired, plain] = await Promise.all([
      startWebhookReceiver({ tls: 'localhost' }),
      startWebhookReceiver({ tls: 'self-signed' }),
      startWebhookReceiver({ tls: 'expired' }),
      startWebhookReceiver(),
    ]);
    service = await startTestService({ env: { ...LOCAL_RECEIVERS_ENV }, clock });
  });
  afterAll(async () => {
    await service.end();
    await Promise.all([trusted, selfSigned, expired, plain].map((receiver) => receiver.close()));
  });
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  const send = (path: string, method = 'GET', body?: unknown, key = service.adminKey) =>
    api(service.url, path, { method, key, ...(body !== undefined ? { body } : {}) });

  describe('create and read', () => {
    it('creates an active webhook and shows its whsec_ secret once (201)', async () => {
      const response = await send(V1, 'POST', {
        url: trusted.url('/hooks/svc'),
        events: ['agent.created', 'agent.updated'],
        description: 'Production receiver',
      });

      expect(response.status).toBe(201);
      const created = json(response);
      expect(Object.keys(created).sort()).toEqual([...WEBHOOK_FIELDS, 'secret'].sort());
      expect(created).toMatchObject({
        id: expect.stringMatching(/^wh_[0-9a-z]{26}$/),
        url: trusted.url('/hooks/svc'),
        events: ['agent.created', 'agent.updated'],
        description: 'Production receiver',
        status: 'active',
        created_at: expect.stringMatching(ISO_MS),
        updated_at: created.created_at,
      });
      expect(created.secret).toMatch(SECRET);
      expect(Buffer.from(created.secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
      expect(created.secret_last4).toBe(created.secret.slice(-4));
    });

    it('never returns the secret again: not from get, nor from the list (only secret_last4)', async () => {
      const created = await createWebhook(service, service.adminKey, {
        url: trusted.url(),
        events: ['agent.deleted'],
      });

      const read = await send(`${V1}/${created.id}`);
      const list = await send(`${V1}?limit=200`);
      const legacyRead = await send(`${LEGACY}/${created.id}`);
      const legacyList = await send(`${LEGACY}?limit=200`);

      expect(read.status).toBe(200);
      const { secret, ...withoutSecret } = created;
      expect(json(read)).toEqual({ ...withoutSecret, description: null });
      expect(json(legacyRead)).toEqual(json(read));
      for (const response of [read, list, legacyRead, legacyList]) {
        expect(response.status).toBe(200);
        expect(response.text).not.toContain(secret);
        expect(response.text).not.toContain(secret.slice('whsec_'.length, 20));
        expect(response.text).not.toMatch(/"secret"\s*:/);
      }
      expect(json(list).webhooks).toContainEqual(json(read));
    });

    it('creates and reads on the legacy path: the same resource, Deprecation and a successor Link', async () => {
      const response = await send(LEGACY, 'POST', {
        url: plain.url('/legacy'),
        events: ['agent.created'],
        description: 'legacy',
      });

      expect(response.status).toBe(201);
      expect(response.headers.get('deprecation')).toBe('true');
      expect(response.headers.get('link')).toBe('</api/v1/webhooks>; rel="successor-version"');
      const created = json(response);
      expect(Object.keys(created).sort()).toEqual([...WEBHOOK_FIELDS, 'secret'].sort());
      expect(created).toMatchObject({ status: 'active', url: plain.url('/legacy') });
      expect(created.secret).toMatch(SECRET);

      const read = await send(`${LEGACY}/${created.id}`);
      expect(read.headers.get('link')).toBe(
        `</api/v1/webhooks/${created.id}>; rel="successor-version"`,
      );
      expect(json(read)).toEqual(json(await send(`${V1}/${created.id}`)));
    });

    it('answers an unknown well-formed id with 404 and a malformed one with 400', async () => {
      expectNestedError(await send(`${V1}/wh_01jf3zzzzzzzzzzzzzzzzzzzzz`), 404, 'not_found');
      expectNestedError(await send(`${V1}/agt_01jf3zzzzzzzzzzzzzzzzzzzzz`), 400, 'invalid_request');
      expect(expectFlatError(await send(`${LEGACY}/wh_01jf3zzzzzzzzzzzzzzzzzzzzz`), 404)).toEqual(
        expect.objectContaining({ status: 404 }),
      );
    });
  });

  describe('update and delete', () => {
    it('updates url, events and description, keeping the secret and the status', async () => {
      const created = await createWebhook(service, service.adminKey, {
        url: trusted.url('/a'),
        events: ['agent.created'],
        description: 'before',
      });
      clock.advance(1_000);

      const response = await send(`${V1}/${created.id}`, 'PUT', {
        url: plain.url('/b'),
        events: ['agent.updated', 'data_source.synced'],
        description: null,
      });

      expect(response.status).toBe(200);
      const updated = json(response);
      expect(updated).toMatchObject({
        id: created.id,
        url: plain.url('/b'),
        events: ['agent.updated', 'data_source.synced'],
        description: null,
        status: 'active',
        secret_last4: created.secret_last4,
        created_at: created.created_at,
      });
      expect(Date.parse(updated.updated_at)).toBeGreaterThan(Date.parse(created.updated_at));
      expect(response.text).not.toContain(created.secret);
      expect(json(await send(`${V1}/${created.id}`))).toEqual(updated);
    });

    it('updates only the fields sent, on both paths', async () => {
      const created = await createWebhook(service, service.adminKey, {
        url: trusted.url('/partial'),
        events: ['agent.created'],
        description: 'kept',
      });

      const v1 = await send(`${V1}/${created.id}`, 'PUT', { events: ['agent.deleted'] });
      const legacy = await send(`${LEGACY}/${created.id}`, 'PUT', { description: 'legacy edit' });

      expect(json(v1)).toMatchObject({ url: trusted.url('/partial'), description: 'kept' });
      expect(legacy.status).toBe(200);
      expect(legacy.headers.get('deprecation')).toBe('true');
      expect(json(legacy)).toMatchObject({
        url: trusted.url('/partial'),
        events: ['agent.deleted'],
        description: 'legacy edit',
      });
    });

    it('refuses an update to a URL that breaks the rules, and changes nothing', async () => {
      const created = await createWebhook(service, service.adminKey, {
        url: trusted.url('/stay'),
        events: ['agent.created'],
      });
      const before = json(await send(`${V1}/${created.id}`));

      expectUrlRefused(
        await send(`${V1}/${created.id}`, 'PUT', {
          url: selfSigned.url(),
          events: ['agent.deleted'],
        }),
        /certificate/,
      );

      expect(json(await send(`${V1}/${created.id}`))).toEqual(before);
    });

    it('deletes (204); afterwards every operation on the id is 404', async () => {
      const created = await createWebhook(service, service.adminKey, {
        url: plain.url(),
        events: ['agent.created'],
      });

      const deleted = await send(`${V1}/${created.id}`, 'DELETE');

      expect(deleted.status).toBe(204);
      expect(deleted.text).toBe('');
      const after: Array<[string, string, unknown]> = [
        ['GET', `${V1}/${created.id}`, undefined],
        ['PUT', `${V1}/${created.id}`, { description: 'x' }],
        ['DELETE', `${V1}/${created.id}`, undefined],
        ['POST', `${V1}/${created.id}/rotate-secret`, undefined],
        ['GET', `${V1}/${created.id}/deliveries`, undefined],
        ['POST', `${V1}/${created.id}/test`, undefined],
      ];
      for (const [method, path, body] of after) {
        expectNestedError(await send(path, method, body), 404, 'not_found');
      }
      expect(json(await send(`${V1}?limit=200`)).webhooks.map((w: any) => w.id)).not.toContain(
        created.id,
      );
    });

    it('deletes on the legacy path too', async () => {
      const created = await createWebhook(service, service.adminKey, {
        url: plain.url(),
        events: ['agent.created'],
      });

      expect((await send(`${LEGACY}/${created.id}`, 'DELETE')).status).toBe(204);
      expectFlatError(await send(`${LEGACY}/${created.id}`), 404);
    });
  });

  describe('list', () => {
    it('pages with limit and offset, newest first, with the total (D2)', async () => {
      const tenant = await createTenant(service, { name: 'Paging tenant' });
      const ids: string[] = [];
      for (const path of ['/one', '/two', '/three']) {
        ids.push(
          (
            await createWebhook(service, tenant.key, {
              url: plain.url(path),
              events: ['agent.created'],
            })
          ).id,
        );
        clock.advance(10);
      }
      const newestFirst = [...ids].reverse();

      const all = json(await send(V1, 'GET', undefined, tenant.key));
      const first = json(await send(`${V1}?limit=2`, 'GET', undefined, tenant.key));
      const second = json(await send(`${V1}?limit=2&offset=2`, 'GET', undefined, tenant.key));
      const beyond = json(await send(`${V1}?offset=5`, 'GET', undefined, tenant.key));
      const legacy = json(await send(`${LEGACY}?limit=1&offset=1`, 'GET', undefined, tenant.key));

      expect(all).toMatchObject({ total: 3, limit: 50, offset: 0 });
      expect(all.webhooks.map((w: any) => w.id)).toEqual(newestFirst);
      expect(first).toMatchObject({ total: 3, limit: 2, offset: 0 });
      expect(first.webhooks.map((w: any) => w.id)).toEqual(newestFirst.slice(0, 2));
      expect(second.webhooks.map((w: any) => w.id)).toEqual(newestFirst.slice(2));
      expect(beyond).toMatchObject({ webhooks: [], total: 3, offset: 5 });
      expect(legacy).toMatchObject({ total: 3, limit: 1, offset: 1 });
      expect(legacy.webhooks.map((w: any) => w.id)).toEqual([newestFirst[1]]);
    });

    it.each(['limit=0', 'limit=201', 'offset=-1', 'limit=abc', 'limit=1.5', 'colour=blue'])(
      'refuses ?%s with 400 (D2: never clamped)',
      async (query) => {
        expectNestedError(await send(`${V1}?${query}`), 400, 'invalid_request');
        expect(expectFlatError(await send(`${LEGACY}?${query}`), 400)).toMatchObject({
          status: 400,
        });
      },
    );
  });

  describe('URL rules (D30, D35)', () => {
    it('accepts an https receiver whose certificate the trusted test CA signed', async () => {
      const created = await createWebhook(service, service.adminKey, {
        url: trusted.url(),
        events: ['agent.created'],
      });

      expect(created.url).toBe(trusted.url());
      // The check connected and completed a handshake; no HTTP request was sent.
      expect(trusted.connections()).toBeGreaterThan(0);
      expect(trusted.receipts).toEqual([]);
    });

    it('refuses a self-signed certificate (400 naming url)', async () => {
      expectUrlRefused(
        await send(V1, 'POST', { url: selfSigned.url(), events: ['agent.created'] }),
        /certificate rejected: .*SELF_SIGNED/,
      );
    });

    it('refuses an expired certificate (400 naming url)', async () => {
      expectUrlRefused(
        await send(V1, 'POST', { url: expired.url(), events: ['agent.created'] }),
        /certificate rejected: CERT_HAS_EXPIRED/,
      );
    });

    it('refuses an https URL where nothing listens', async () => {
      const port = await closedPort();
      expectUrlRefused(
        await send(V1, 'POST', { url: `https://127.0.0.1:${port}/x`, events: ['agent.created'] }),
        /connection refused/,
      );
    });

    it.each([
      ['http://127.0.0.1', '/hook'],
      ['http://localhost', '/hook'],
    ])(
      'accepts plain %s:<port> for a local receiver (SVC_ALLOW_PRIVATE_URLS)',
      async (base, path) => {
        const created = await createWebhook(service, service.adminKey, {
          url: `${base}:${plain.port}${path}`,
          events: ['agent.created'],
        });
        expect(created.status).toBe('active');
      },
    );

    it('refuses the legacy create with the flat error naming url', async () => {
      const body = expectFlatError(
        await send(LEGACY, 'POST', { url: selfSigned.url(), events: ['agent.created'] }),
        400,
      );
      expect(body).toMatchObject({ status: 400, code: 'invalid_request' });
      expect(fieldPaths(body)).toEqual(['url']);
    });

    describe('plain http to anything but loopback, even with private addresses allowed', () => {
      let recorder: ConnectionRecorder;
      beforeAll(() => {
        recorder = recordConnectionAttempts();
      });
      afterAll(() => recorder.stop());

      it.each([
        'http://10.0.0.1/hook',
        'http://169.254.169.254/latest/meta-data/',
        'http://192.168.1.10:8080/hook',
        'http://100.64.0.1/hook',
        'http://[fd00::1]/hook',
        'http://[::ffff:a9fe:a9fe]/hook',
        'http://0.0.0.0:1/hook',
      ])('refuses %s without connecting', async (url) => {
        expectUrlRefused(await send(V1, 'POST', { url, events: ['agent.created'] }), /https/);
        expect(recorder.nonLoopback()).toEqual([]);
      });
    });

    it.each([
      ['ftp://127.0.0.1/hook', /scheme ftp/],
      ['file:///etc/passwd', /scheme file/],
      ['javascript:alert(1)', /scheme javascript/],
      ['not a url', /not a valid URL/],
      ['https://user:pass@127.0.0.1/hook', /credentials/],
    ])('refuses %s', async (url, reason) => {
      expectUrlRefused(await send(V1, 'POST', { url, events: ['agent.created'] }), reason);
    });

    it("refuses a host name that does not resolve, on the resolver's answer", async () => {
      // Not a time: a lookup that ran into its deadline says "did not resolve within N ms".
      expectUrlRefused(
        await send(V1, 'POST', {
          url: 'https://hooks.does-not-exist.invalid/x',
          events: ['agent.created'],
        }),
        /does not resolve/,
      );
    });
  });

  describe('event names (D27)', () => {
    it('accepts the published aliases and keeps the names as subscribed', async () => {
      const created = await createWebhook(service, service.adminKey, {
        url: plain.url(),
        events: ['data_source.synced', 'data_source.processed', 'eval.completed', 'user.updated'],
      });
      expect(created.events).toEqual([
        'data_source.synced',
        'data_source.processed',
        'eval.completed',
        'user.updated',
      ]);
    });

    it.each([
      ['an unknown name', ['agent.created', 'agent.exploded']],
      ['the test event, which is not subscribable', ['webhook.test']],
      ['a prototype key', ['__proto__']],
      ['duplicates', ['agent.created', 'agent.created']],
      ['an empty list', []],
      ['more than 50 names', Array.from({ length: 51 }, () => 'agent.created')],
      ['a name that is not a string', ['agent.created', 7]],
    ])('refuses %s (400 naming events)', async (_what, events) => {
      const response = await send(V1, 'POST', { url: plain.url(), events });
      const error = expectNestedError(response, 400, 'invalid_request');
      expect(fieldPaths(error).every((path) => path.startsWith('events'))).toBe(true);
      expect(fieldPaths(error).length).toBeGreaterThan(0);
    });

    it('names the unknown event in the error', async () => {
      const error = expectNestedError(
        await send(V1, 'POST', { url: plain.url(), events: ['agent.exploded'] }),
        400,
        'invalid_request',
      );
      expect(error.message).toContain('agent.exploded');
    });

    it('refuses unknown fields and a missing url, listing them', async () => {
      const unknown = expectNestedError(
        await send(V1, 'POST', { url: plain.url(), events: ['agent.created'], secret: 'mine' }),
        400,
        'invalid_request',
      );
      expect(JSON.stringify(unknown.details)).toContain('secret');
      const missing = expectNestedError(
        await send(V1, 'POST', { events: ['agent.created'] }),
        400,
        'invalid_request',
      );
      expect(fieldPaths(missing)).toEqual(['url']);
    });
  });

  describe('rotate-secret', () => {
    it('returns a new secret once; the old one is not shown again', async () => {
      const created = await createWebhook(service, service.adminKey, {
        url: plain.url(),
        events: ['agent.created'],
      });

      const response = await send(`${V1}/${created.id}/rotate-secret`, 'POST');
      const legacy = await send(`${LEGACY}/${created.id}/rotate-secret`, 'POST');

      expect(response.status).toBe(200);
      const rotated = json(response);
      expect(Object.keys(rotated).sort()).toEqual([...WEBHOOK_FIELDS, 'secret'].sort());
      expect(rotated.secret).toMatch(SECRET);
      expect(rotated.secret).not.toBe(created.secret);
      expect(rotated.secret_last4).toBe(rotated.secret.slice(-4));
      expect(legacy.status).toBe(200);
      expect(json(legacy).secret).not.toBe(rotated.secret);
      const read = await send(`${V1}/${created.id}`);
      expect(json(read).secret_last4).toBe(json(legacy).secret.slice(-4));
      expect(read.text).not.toContain(rotated.secret);
    });
  });
});
