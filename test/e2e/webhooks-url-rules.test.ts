import { type ConnectionRecorder, recordConnectionAttempts } from '../support/connection-attempts';
import { expectFlatError, expectNestedError, fieldPaths } from '../support/error-shapes';
import { api } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import { createWebhook, LOCAL_RECEIVERS_ENV } from '../support/webhooks';
import { expectUrlRefused, LEGACY, V1 } from './webhooks-management-shared';

/** Webhook URL rules under the service's other network settings: without the test CA, and with the cloud's rules. */
describe('Webhook URL rules without SVC_EXTRA_CA_FILE', () => {
  let service: TestService;
  let trusted: WebhookReceiver;
  let plain: WebhookReceiver;

  beforeAll(async () => {
    [trusted, plain] = await Promise.all([
      startWebhookReceiver({ tls: 'localhost' }),
      startWebhookReceiver(),
    ]);
    service = await startTestService({ env: { SVC_ALLOW_PRIVATE_URLS: 'true' } });
  });
  afterAll(async () => {
    await service.end();
    await Promise.all([trusted.close(), plain.close()]);
  });

  it('refuses the receiver whose certificate only the test CA vouches for', async () => {
    expectUrlRefused(
      await api(service.url, V1, {
        method: 'POST',
        key: service.adminKey,
        body: { url: trusted.url(), events: ['agent.created'] },
      }),
      /certificate rejected/,
    );
  });

  it('still accepts plain http to a loopback receiver', async () => {
    const created = await createWebhook(service, service.adminKey, {
      url: plain.url(),
      events: ['agent.created'],
    });
    expect(created.status).toBe('active');
  });
});

describe('Webhook URL rules by default (no private addresses: the cloud rules)', () => {
  const clock = new TestClock();
  let service: TestService;
  let trusted: WebhookReceiver;
  let plain: WebhookReceiver;
  let recorder: ConnectionRecorder;

  beforeAll(async () => {
    [trusted, plain] = await Promise.all([
      startWebhookReceiver({ tls: 'localhost' }),
      startWebhookReceiver(),
    ]);
    // Trusting the test CA, so only the address rule can refuse the loopback receiver.
    service = await startTestService({
      env: { SVC_EXTRA_CA_FILE: LOCAL_RECEIVERS_ENV.SVC_EXTRA_CA_FILE as string },
      clock,
    });
    recorder = recordConnectionAttempts();
  });
  afterAll(async () => {
    recorder.stop();
    await service.end();
    await Promise.all([trusted.close(), plain.close()]);
  });
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  const refusedUrls = (): string[] => [
    trusted.url(),
    `https://localhost:${trusted.port}/hook`,
    `https://127.1:${trusted.port}/hook`,
    `https://0x7f.1:${trusted.port}/hook`,
    `https://017700000001:${trusted.port}/hook`,
    `https://[::ffff:7f00:1]:${trusted.port}/hook`,
    `https://[::1]:${trusted.port}/hook`,
    plain.url(),
    `http://localhost:${plain.port}/hook`,
    'https://10.0.0.1/hook',
    'https://169.254.169.254/latest/meta-data/',
    'https://[::ffff:a9fe:a9fe]/hook',
    'https://[2002:a9fe:a9fe::1]/hook',
    'https://100.64.0.1/hook',
    'https://0.0.0.0/hook',
    'https://192.168.0.1/hook',
    'https://172.16.0.1/hook',
    'https://[fd00::1]/hook',
    'https://[fe80::1]/hook',
    'https://224.0.0.1/hook',
  ];

  it('refuses loopback, private, link-local, CGNAT and metadata addresses with 400 naming url, before connecting', async () => {
    for (const url of refusedUrls()) {
      const created = await api(service.url, V1, {
        method: 'POST',
        key: service.adminKey,
        body: { url, events: ['agent.created'] },
      });
      const error = expectNestedError(created, 400, 'invalid_request');
      expect({ url, fields: fieldPaths(error) }).toEqual({ url, fields: ['url'] });
      clock.advance(REFILL_ALL_BUCKETS_MS);
    }

    // Nothing was connected to: not the receivers, not any other address
    // (the recorder does see the loopback connections to the service itself).
    expect(recorder.attempts.length).toBeGreaterThan(0);
    expect(recorder.nonLoopback()).toEqual([]);
    expect(recorder.toPort(trusted.port)).toEqual([]);
    expect(recorder.toPort(plain.port)).toEqual([]);
    expect(trusted.connections()).toBe(0);
    expect(plain.connections()).toBe(0);
  });

  it('names the refused address and its range', async () => {
    const error = expectNestedError(
      await api(service.url, V1, {
        method: 'POST',
        key: service.adminKey,
        body: { url: 'https://169.254.169.254/latest/meta-data/', events: ['agent.created'] },
      }),
      400,
      'invalid_request',
    );
    expect(error.details.fields[0].message).toMatch(/169\.254\.169\.254 is not public/);
  });

  it('refuses the same on the legacy path, with the flat error', async () => {
    const legacy = await api(service.url, LEGACY, {
      method: 'POST',
      key: service.adminKey,
      body: { url: 'https://10.0.0.1/hook', events: ['agent.created'] },
    });
    expect(fieldPaths(expectFlatError(legacy, 400))).toEqual(['url']);
    expect(recorder.nonLoopback()).toEqual([]);
  });
});
