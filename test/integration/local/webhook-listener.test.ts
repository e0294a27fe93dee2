import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SUBSCRIBABLE_EVENT_NAMES } from '../../../layers/core/domain/events';
import {
  standardWebhookSignature,
  svcSignature,
} from '../../../layers/core/domain/webhook-signature';
import { runCli } from '../../../lib/local/admin-cli';
import {
  ListenerError,
  type ReceivedDelivery,
  startWebhookListener,
  type WebhookListener,
} from '../../../lib/local/webhook-listener';
import { api, json } from '../../support/http-client';
import { startTestService, type TestService } from '../../support/local-service';

const isAgentCreated = (agentId: string) => (delivery: ReceivedDelivery) =>
  delivery.eventType === 'agent.created' &&
  (delivery.envelope?.data as { id?: string } | undefined)?.id === agentId;

async function createAgent(service: TestService, name: string): Promise<string> {
  const response = await api(service.url, '/api/v1/agents', {
    method: 'POST',
    key: service.adminKey,
    body: { name, data_source_ids: [] },
  });
  expect(response.status).toBe(201);
  return json(response).id;
}

/** POSTs `body` to the listener with `headers`, as a replaying or forging sender would. */
async function post(url: string, body: string, headers: Record<string, string>) {
  const response = await fetch(url, { method: 'POST', headers, body });
  return { status: response.status, text: await response.text() };
}

/** The headers a delivery carried, the ones a sender sets (not the transport's). */
function signedHeaders(delivery: ReceivedDelivery): Record<string, string> {
  const names = [
    'content-type',
    'x-svc-signature',
    'x-svc-event',
    'x-svc-delivery',
    'webhook-id',
    'webhook-timestamp',
    'webhook-signature',
  ];
  return Object.fromEntries(names.map((name) => [name, delivery.headers[name] ?? '']));
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('npx svc webhooks listen: the local receiver (D29, D35, D36)', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ env: { SVC_ALLOW_PRIVATE_URLS: 'true' } });
  });
  afterAll(() => service.end());

  describe('register mode', () => {
    let listener: WebhookListener;
    let clockOffsetMs = 0;
    const lines: string[] = [];
    let agentId: string;
    let first: ReceivedDelivery;

    beforeAll(async () => {
      listener = await startWebhookListener({
        mode: {
          kind: 'register',
          api: service.url,
          key: service.adminKey,
          events: [...SUBSCRIBABLE_EVENT_NAMES],
        },
        port: 0,
        printJson: true,
        out: (line) => lines.push(line),
        now: () => new Date(Date.now() + clockOffsetMs),
      });
    });
    afterAll(() => listener.close());

    it('registers a webhook for every subscribable event, pointing at the receiver', async () => {
      const response = await api(service.url, `/api/v1/webhooks/${listener.webhookId}`, {
        key: service.adminKey,
      });

      expect(response.status).toBe(200);
      expect(json(response)).toMatchObject({
        url: listener.url,
        events: [...SUBSCRIBABLE_EVENT_NAMES],
        status: 'active',
      });
      expect(listener.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhook$/);
      expect(listener.secret).toMatch(/^whsec_/);
      expect(lines.join('\n')).toContain(`Signing secret (shown once): ${listener.secret}`);
    });

    it('receives, verifies and prints agent.created once the workers run', async () => {
      // Prepare
      agentId = await createAgent(service, 'Listened to');

      // Act
      await service.runtime.workers.step();
      first = await listener.waitFor(isAgentCreated(agentId));

      // Assess
      expect(first).toMatchObject({ outcome: 'verified', status: 200, reason: null });
      expect(first.envelope).toMatchObject({
        type: 'agent.created',
        event: 'agent.created',
        organizationId: service.orgId,
        data: { id: agentId, name: 'Listened to' },
      });
      expect(first.eventId).toMatch(/^evt_/);
      expect(first.deliveryId).toMatch(/^dlv_/);
      const line = lines.find((candidate) => candidate.includes(first.eventId ?? '?'));
      expect(line).toBe(
        `${first.receivedAt.toISOString()}  agent.created  ${first.eventId}  ${first.deliveryId}  verified → 200`,
      );
      // --print-json: the body follows its line.
      expect(lines[lines.indexOf(line ?? '') + 1]).toContain(`"id": "${agentId}"`);
      // The service recorded the 200 as a successful delivery.
      const deliveries = await api(
        service.url,
        `/api/v1/webhooks/${listener.webhookId}/deliveries`,
        { key: service.adminKey },
      );
      expect(json(deliveries).deliveries).toEqual([
        expect.objectContaining({ id: first.deliveryId, status: 'delivered' }),
      ]);
    });

    it('answers 400 to a tampered body or signature, and 200 "duplicate" to a repeat', async () => {
      const headers = signedHeaders(first);
      const tamperedBody = first.body.replace('Listened to', 'Listened to!');
      const flipped = (hex: string) => `${hex.slice(0, -1)}${hex.endsWith('0') ? '1' : '0'}`;

      const body = await post(listener.url, tamperedBody, headers);
      const svc = await post(listener.url, first.body, {
        ...headers,
        'x-svc-signature': flipped(headers['x-svc-signature'] ?? ''),
      });
      const standard = await post(listener.url, first.body, {
        ...headers,
        'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')}`,
      });
      const unsigned = await post(listener.url, first.body, { 'content-type': 'application/json' });
      const repeat = await post(listener.url, first.body, headers);

      expect(body).toEqual({ status: 400, text: 'X-Svc-Signature does not match the body\n' });
      expect(svc).toEqual({ status: 400, text: 'X-Svc-Signature does not match the body\n' });
      expect(standard).toEqual({ status: 400, text: 'webhook-signature does not match\n' });
      expect(unsigned).toEqual({ status: 400, text: 'missing X-Svc-Signature\n' });
      expect(repeat).toEqual({ status: 200, text: 'duplicate\n' });
      expect(listener.received.at(-1)).toMatchObject({
        outcome: 'duplicate',
        eventId: first.eventId,
      });
      expect(lines.filter((line) => line.includes('REJECTED'))).toHaveLength(4);
      expect(lines.at(-1)).toContain(`${first.eventId}  ${first.deliveryId}  duplicate → 200`);
    });

    it('refuses a replay with a timestamp older than 5 minutes, even correctly signed', async () => {
      // Prepare: the captured delivery, 6 minutes later.
      const headers = signedHeaders(first);
      clockOffsetMs = 6 * 60_000;
      try {
        // Act
        const replay = await post(listener.url, first.body, headers);
        // The same event re-signed with the right secret but an old timestamp.
        const timestamp = Math.floor(Date.now() / 1000) - 10 * 60;
        clockOffsetMs = 0;
        const resigned = await post(listener.url, first.body, {
          ...headers,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': standardWebhookSignature(
            first.eventId ?? '',
            timestamp,
            first.body,
            listener.secret,
          ),
        });

        // Assess
        expect(replay.status).toBe(400);
        expect(replay.text).toMatch(/^webhook-timestamp is 3\d\d s old/);
        expect(resigned.status).toBe(400);
        expect(resigned.text).toMatch(/^webhook-timestamp is 6\d\d s old/);
      } finally {
        clockOffsetMs = 0;
      }
    });

    it('sees the test event and agent.updated/agent.deleted under their names', async () => {
      const test = await api(service.url, `/api/v1/webhooks/${listener.webhookId}/test`, {
        method: 'POST',
        key: service.adminKey,
      });
      await api(service.url, `/api/v1/agents/${agentId}`, {
        method: 'PUT',
        key: service.adminKey,
        body: { temperature: 0.5 },
      });
      await api(service.url, `/api/v1/agents/${agentId}`, {
        method: 'DELETE',
        key: service.adminKey,
      });
      await service.runtime.workers.step();

      expect(json(test)).toMatchObject({ delivered: true, status_code: 200 });
      const verified = listener.received.filter((delivery) => delivery.outcome === 'verified');
      expect(verified.map((delivery) => delivery.eventType)).toEqual([
        'agent.created',
        'webhook.test',
        'agent.updated',
        'agent.deleted',
      ]);
      expect(verified[2]?.envelope?.data).toMatchObject({
        changes: { temperature: { current: 0.5 } },
      });
      expect(verified[3]?.envelope?.data).toEqual({ id: agentId });
    });

    it('deletes its webhook and stops receiving on close()', async () => {
      await listener.close();

      const gone = await api(service.url, `/api/v1/webhooks/${listener.webhookId}`, {
        key: service.adminKey,
      });
      expect(gone.status).toBe(404);
      await expect(fetch(listener.url, { method: 'POST', body: '{}' })).rejects.toThrow();
      await expect(listener.close()).resolves.toBeUndefined(); // idempotent
    });
  });

  it('secret mode: verifies deliveries for an existing webhook and registers nothing', async () => {
    // Prepare: a webhook registered by other means, pointing at a port chosen beforehand.
    const port = await freePort();
    const created = await api(service.url, '/api/v1/webhooks', {
      method: 'POST',
      key: service.adminKey,
      body: { url: `http://127.0.0.1:${port}/webhook`, events: ['agent.created'] },
    });
    expect(created.status).toBe(201);
    const { id, secret } = json(created);
    const lines: string[] = [];
    const listener = await startWebhookListener({
      mode: { kind: 'secret', secret },
      port,
      out: (line) => lines.push(line),
    });
    try {
      // Act
      const agentId = await createAgent(service, 'Secret mode');
      await service.runtime.workers.step();
      const delivery = await listener.waitFor(isAgentCreated(agentId));

      // Assess
      expect(delivery.outcome).toBe('verified');
      expect(listener.webhookId).toBeNull();
      expect(lines[0]).toBe(
        `Receiving on http://127.0.0.1:${port}/webhook (secret mode: no webhook registered)`,
      );
      const list = await api(service.url, '/api/v1/webhooks', { key: service.adminKey });
      expect(json(list).webhooks.map((webhook: { id: string }) => webhook.id)).toEqual([id]);
    } finally {
      await listener.close();
    }
    // Secret mode deletes nothing.
    const still = await api(service.url, `/api/v1/webhooks/${id}`, { key: service.adminKey });
    expect(still.status).toBe(200);
    await api(service.url, `/api/v1/webhooks/${id}`, { method: 'DELETE', key: service.adminKey });
  });

  it('verifies with the previous secret during a rotation overlap (X-Svc-Signature-Previous)', async () => {
    const port = await freePort();
    const created = await api(service.url, '/api/v1/webhooks', {
      method: 'POST',
      key: service.adminKey,
      body: { url: `http://127.0.0.1:${port}/webhook`, events: ['agent.created'] },
    });
    const { id, secret: oldSecret } = json(created);
    const rotated = await api(service.url, `/api/v1/webhooks/${id}/rotate-secret`, {
      method: 'POST',
      key: service.adminKey,
    });
    expect(rotated.status).toBe(200);
    const listener = await startWebhookListener({
      mode: { kind: 'secret', secret: oldSecret },
      port,
      out: () => {},
    });
    try {
      const agentId = await createAgent(service, 'Rotated');
      await service.runtime.workers.step();
      const delivery = await listener.waitFor(isAgentCreated(agentId));

      expect(delivery.outcome).toBe('verified');
      expect(delivery.headers['x-svc-signature']).toBe(
        svcSignature(delivery.body, json(rotated).secret),
      );
      expect(delivery.headers['x-svc-signature-previous']).toBe(
        svcSignature(delivery.body, oldSecret),
      );
      expect(delivery.headers['webhook-signature']?.split(' ')).toHaveLength(2);
    } finally {
      await listener.close();
      await api(service.url, `/api/v1/webhooks/${id}`, { method: 'DELETE', key: service.adminKey });
    }
  });

  describe('the CLI command', () => {
    /** Runs `svc …` in-process until `until` appears in its output; then stops it like Ctrl-C. */
    async function runUntil(args: string[], env: Record<string, string>, until: RegExp) {
      const lines: string[] = [];
      const controller = new AbortController();
      let seen: () => void = () => {};
      const appeared = new Promise<void>((resolve) => {
        seen = resolve;
      });
      const running = runCli(args, {
        out: (line) => {
          lines.push(line);
          if (until.test(line)) seen();
        },
        env,
        signal: controller.signal,
      });
      const first = await Promise.race([appeared.then(() => 'appeared' as const), running]);
      return { lines, running, stop: () => controller.abort(), ended: first !== 'appeared' };
    }

    it('registers with SVC_API_KEY, prints each delivery, and deletes the webhook on stop (exit 0)', async () => {
      // Prepare
      const cli = await runUntil(
        ['webhooks', 'listen', '--api', service.url, '--events', 'agent.created,agent.deleted'],
        { SVC_API_KEY: service.adminKey },
        /^Ready:/,
      );
      expect(cli.ended).toBe(false);
      const webhookId = /Registered webhook (wh_\w+) for 2 event type\(s\)/.exec(
        cli.lines.join('\n'),
      )?.[1];
      expect(webhookId).toBeDefined();

      // Act
      await createAgent(service, 'Seen by the CLI');
      await service.runtime.workers.step();
      cli.stop();
      const code = await cli.running;

      // Assess
      expect(code).toBe(0);
      expect(
        cli.lines.some((line) => /\sagent\.created\s+evt_\w+\s+dlv_\w+\s+verified/.test(line)),
      ).toBe(true);
      expect(cli.lines.at(-1)).toBe(`Deleted webhook ${webhookId}`);
      const gone = await api(service.url, `/api/v1/webhooks/${webhookId}`, {
        key: service.adminKey,
      });
      expect(gone.status).toBe(404);
    });

    it('answers usage mistakes with exit code 2', async () => {
      const run = async (args: string[], env: Record<string, string> = {}) =>
        (await runCli(['webhooks', 'listen', ...args], { out: () => {}, env })).toString();

      expect(await run([])).toBe('2'); // neither a key nor a secret
      expect(await run(['--secret', `whsec_${'A'.repeat(43)}=`])).toBe('2'); // no --port
      expect(await run(['--secret', 'nope', '--port', '4000'])).toBe('2');
      expect(
        await run([
          '--secret',
          `whsec_${'A'.repeat(43)}=`,
          '--port',
          '4000',
          '--key',
          service.adminKey,
        ]),
      ).toBe('2');
      expect(await run(['--key', service.adminKey, '--events', 'agent.exploded'])).toBe('2');
      expect(await run(['--key', 'svcsk_test_nope'])).toBe('2');
      expect(await run([], { SVC_API_KEY: 'nope' })).toBe('2');
      expect(await run(['--key', service.adminKey, '--json'])).toBe('2');
      expect(await run(['--key', service.adminKey, '--port', '70000'])).toBe('2');
    });

    it('explains the API being unreachable (exit 1)', async () => {
      const port = await freePort();
      const lines: string[] = [];
      const code = await runCli(
        ['webhooks', 'listen', '--api', `http://127.0.0.1:${port}`, '--key', service.adminKey],
        { out: (line) => lines.push(line), env: {} },
      );
      expect(code).toBe(1);
      expect(lines.join('\n')).toMatch(/Could not reach the API at http:\/\/127\.0\.0\.1:\d+/);
    });
  });
});

describe('npx svc webhooks listen against a server that refuses loopback URLs (D35 default)', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.end());

  it('prints the SVC_ALLOW_PRIVATE_URLS hint and exits 1, leaving no webhook behind', async () => {
    const lines: string[] = [];
    const code = await runCli(
      ['webhooks', 'listen', '--api', service.url, '--key', service.adminKey],
      {
        out: (line) => lines.push(line),
        env: {},
      },
    );

    expect(code).toBe(1);
    const output = lines.join('\n');
    expect(output).toContain('The server refused the listener');
    expect(output).toContain('start the server with SVC_ALLOW_PRIVATE_URLS=true npm start');
    await expect(
      startWebhookListener({
        mode: {
          kind: 'register',
          api: service.url,
          key: service.adminKey,
          events: ['agent.created'],
        },
        port: 0,
        out: () => {},
      }),
    ).rejects.toBeInstanceOf(ListenerError);
    const list = await api(service.url, '/api/v1/webhooks', { key: service.adminKey });
    expect(json(list).total).toBe(0);
  });
});
