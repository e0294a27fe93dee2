import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../layers/core/adapters/dynamodb/table-design';
import { parseLocalConfig } from '../../lib/local/local-config';
import { createAgent, createDataSource } from '../support/fixtures';
import { api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { createKey, type TestKey } from '../support/tenants';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';
import { createTestUser, signedIn, type TestUser, type WebSession } from '../support/web-session';
import {
  answers,
  type Receipt,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../support/webhook-receiver';
import {
  createWebhook,
  deliveryOf,
  LOCAL_RECEIVERS_ENV,
  listDeliveries,
  step,
} from '../support/webhooks';

/** Every event a webhook here subscribes to: agent-scoped, user and data source events. */
const EVENTS = [
  'interaction.created',
  'interaction.completed',
  'interaction.feedback',
  'agent.created',
  'agent.updated',
  'agent.deleted',
  'datasource.created',
  'user.created',
];

/** The agent a received event is about, as each payload names it (undefined: not about an agent). */
function agentOf(receipt: Receipt): string | undefined {
  const { type, data } = receipt.envelope;
  if (String(type).startsWith('interaction.')) {
    return data.interaction.agentId ?? data.interaction.agent_id;
  }
  if (type === 'agent.updated') return data.agent.id;
  if (type === 'agent.created' || type === 'agent.deleted') return data.id;
  return undefined;
}

/**
 * Issue 20 item 4 (P80, P81, P217, P218): a webhook delivers only what its
 * owner — the user or API key that created it or last changed its URL — may see
 * when each event is published and again at each attempt. A user whose
 * groups allow only one agent gets that agent's interaction, feedback and
 * agent events and none of another's; a key's or an unrestricted user's
 * webhook gets both; a change of groups applies at the next event.
 */
describe('Webhooks and agent access', () => {
  const clock = new TestClock();
  let service: TestService;
  const receivers: WebhookReceiver[] = [];
  let key: TestKey;
  let admin: WebSession;
  let member: TestUser;
  let restricted: WebSession;
  let unrestricted: WebSession;
  let helpAgent: string;
  let billingAgent: string;
  let helpOnly: string;
  const hooks: Record<string, Record<string, any>> = {};
  const inbox: Record<string, WebhookReceiver> = {};

  const receiver = async (): Promise<WebhookReceiver> => {
    const started = await startWebhookReceiver();
    receivers.push(started);
    return started;
  };
  /** What `receiver` got from now on, read after `act` and a background round. */
  async function receivedDuring(act: () => Promise<unknown>): Promise<Record<string, Receipt[]>> {
    const marks = Object.fromEntries(
      Object.entries(inbox).map(([name, r]) => [name, r.receipts.length]),
    );
    await act();
    await step(service);
    return Object.fromEntries(
      Object.entries(inbox).map(([name, r]) => [name, r.receipts.slice(marks[name])]),
    );
  }
  const ask = async (agentId: string, query: string) => {
    const response = await api(service.url, '/api/v1/query', {
      method: 'POST',
      key: key.key,
      body: { agent_id: agentId, query },
    });
    expect(response.status).toBe(200);
    return json(response).metadata.interaction_id as string;
  };
  const summary = (receipts: Receipt[]) =>
    receipts.map((receipt) => `${receipt.envelope.type} ${agentOf(receipt) ?? '-'}`).sort();
  const setGroupAgents = async (agentIds: string[] | null) => {
    const response = await admin.request(`/api/v1/groups/${helpOnly}`, {
      method: 'PUT',
      body: { agent_ids: agentIds },
    });
    expect(response.status).toBe(200);
  };
  const membership = async (method: 'PUT' | 'DELETE') => {
    const response = await admin.request(`/api/v1/groups/${helpOnly}/members/${member.id}`, {
      method,
    });
    expect(response.status).toBeLessThan(300);
  };

  beforeAll(async () => {
    service = await startTestService({ env: { ...LOCAL_RECEIVERS_ENV }, clock });
    key = await createKey(service, service.orgId, { name: 'integration' });
    helpAgent = (await createAgent(service, key.key, { name: 'Help', data_source_ids: [] })).id;
    billingAgent = (await createAgent(service, key.key, { name: 'Billing', data_source_ids: [] }))
      .id;
    admin = await signedIn(service, await createTestUser(service, { role: 'admin' }));
    const group = await admin.request('/api/v1/groups', {
      method: 'POST',
      body: { name: 'Help desk', agent_ids: [helpAgent] },
    });
    helpOnly = json(group).id;
    member = await createTestUser(service, { role: 'configure' });
    await membership('PUT');
    restricted = await signedIn(service, member);
    unrestricted = await signedIn(service, await createTestUser(service, { role: 'configure' }));
    // The events of this setup are published before any webhook exists.
    await step(service);

    for (const name of ['restricted', 'unrestricted', 'key', 'admin']) {
      inbox[name] = await receiver();
    }
    const register = async (as: WebSession, name: string) => {
      const response = await as.request('/api/v1/webhooks', {
        method: 'POST',
        body: { url: inbox[name]?.url(`/${name}`), events: EVENTS },
      });
      expect({ status: response.status, body: response.body }).toMatchObject({ status: 201 });
      hooks[name] = json(response);
    };
    await register(restricted, 'restricted');
    await register(unrestricted, 'unrestricted');
    await register(admin, 'admin');
    hooks.key = await createWebhook(service, key.key, {
      url: inbox.key?.url('/key'),
      events: EVENTS,
    });
  });
  afterAll(async () => {
    await service.end();
    await Promise.all(receivers.map((started) => started.close()));
  });
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  it('records whose access each webhook delivers with: its creator, user or API key', async () => {
    const read = await restricted.request(`/api/v1/webhooks/${hooks.restricted?.id}`);

    expect(hooks.restricted?.owner).toEqual({ type: 'user', id: member.id });
    expect(json(read).owner).toEqual({ type: 'user', id: member.id });
    expect(hooks.key?.owner).toEqual({ type: 'api_key', id: key.keyId });
  });

  it("delivers a restricted user's webhook their agent's interactions and none of another agent's", async () => {
    const received = await receivedDuring(async () => {
      await ask(helpAgent, 'How do I reset my password?');
      await ask(billingAgent, 'Why was my card charged twice?');
    });

    expect(summary(received.restricted ?? [])).toEqual([
      `interaction.completed ${helpAgent}`,
      `interaction.created ${helpAgent}`,
    ]);
    for (const receipt of received.restricted ?? []) {
      const raw = receipt.raw.toString('utf8');
      expect(raw).not.toContain(billingAgent);
      expect(raw).not.toContain('charged twice');
    }
    const both = [
      `interaction.completed ${billingAgent}`,
      `interaction.completed ${helpAgent}`,
      `interaction.created ${billingAgent}`,
      `interaction.created ${helpAgent}`,
    ].sort();
    expect(summary(received.unrestricted ?? [])).toEqual(both);
    expect(summary(received.key ?? [])).toEqual(both);
    expect(summary(received.admin ?? [])).toEqual(both);
  });

  it('holds feedback and agent events to the same agents', async () => {
    const helpAsked = await ask(helpAgent, 'Where is the help center?');
    const billingAsked = await ask(billingAgent, 'When is the invoice sent?');
    await step(service);

    const received = await receivedDuring(async () => {
      for (const id of [helpAsked, billingAsked]) {
        const response = await api(service.url, `/api/v1/interactions/${id}/feedback`, {
          method: 'POST',
          key: key.key,
          body: { feedback: 'positive' },
        });
        expect(response.status).toBe(200);
      }
      for (const id of [helpAgent, billingAgent]) {
        const response = await api(service.url, `/api/v1/agents/${id}`, {
          method: 'PUT',
          key: key.key,
          body: { system_prompt: `You answer for ${id}.` },
        });
        expect(response.status).toBe(200);
      }
      const other = await createAgent(service, key.key, { name: 'Sales', data_source_ids: [] });
      await api(service.url, `/api/v1/agents/${other.id}`, { method: 'DELETE', key: key.key });
    });

    expect(summary(received.restricted ?? [])).toEqual([
      `agent.updated ${helpAgent}`,
      `interaction.feedback ${helpAgent}`,
    ]);
    expect(summary(received.unrestricted ?? [])).toHaveLength(6);
    expect(summary(received.key ?? [])).toHaveLength(6);
  });

  it('keeps data source events flowing to every webhook, and user events to an admin or key only', async () => {
    const received = await receivedDuring(async () => {
      await createDataSource(service, key.key);
      await createTestUser(service, { role: 'readonly' });
    });

    expect(summary(received.restricted ?? [])).toEqual(['datasource.created -']);
    expect(summary(received.unrestricted ?? [])).toEqual(['datasource.created -']);
    expect(summary(received.key ?? [])).toEqual(['datasource.created -', 'user.created -']);
    expect(summary(received.admin ?? [])).toEqual(['datasource.created -', 'user.created -']);
  });

  it("follows the owner's groups at the next event: lifted, then changed to another agent", async () => {
    await membership('DELETE');
    const lifted = await receivedDuring(() => ask(billingAgent, 'Can I pay by invoice?'));
    await membership('PUT');
    await setGroupAgents([billingAgent]);
    const changed = await receivedDuring(async () => {
      await ask(helpAgent, 'How do I change my email?');
      await ask(billingAgent, 'Do you accept wire transfers?');
    });
    await setGroupAgents([helpAgent]);
    const restored = await receivedDuring(() => ask(billingAgent, 'Is VAT included?'));

    expect(summary(lifted.restricted ?? [])).toEqual([
      `interaction.completed ${billingAgent}`,
      `interaction.created ${billingAgent}`,
    ]);
    expect(summary(changed.restricted ?? [])).toEqual([
      `interaction.completed ${billingAgent}`,
      `interaction.created ${billingAgent}`,
    ]);
    expect(restored.restricted).toEqual([]);
  });

  it('checks again at every attempt: a retry, automatic or by hand, of what the owner may no longer see is cancelled, not sent', async () => {
    const webhookId = hooks.restricted?.id as string;
    const hook = inbox.restricted as WebhookReceiver;
    hook.answerWith(answers.status(503));
    try {
      // Allowed when asked: the first attempt goes out (and fails).
      await membership('DELETE');
      let interactionId = '';
      const first = await receivedDuring(async () => {
        interactionId = await ask(billingAgent, 'Can I get a refund?');
      });
      expect(first.restricted).toHaveLength(2);
      await membership('PUT');
      clock.advance(6_000);
      const retried = await receivedDuring(async () => {});
      expect(retried.restricted).toEqual([]);
      const created = first.restricted?.find((r) => r.envelope.type === 'interaction.created');
      const delivery = await deliveryOf(service, key.key, webhookId, String(created?.envelope.id));
      expect(delivery).toMatchObject({ status: 'cancelled' });
      expect(delivery.failure_reason).toMatch(/owner may not see/);
      expect(interactionId).not.toBe('');

      // A failed delivery retried by hand is checked the same way.
      await membership('DELETE');
      const lost = await receivedDuring(() => ask(billingAgent, 'Where is my receipt?'));
      const lostEvent = String(lost.restricted?.[0]?.envelope.id);
      for (const wait of [5, 30, 300, 3600]) {
        clock.advance(wait * 1000 + 1);
        await step(service);
      }
      const failed = await deliveryOf(service, key.key, webhookId, lostEvent);
      expect(failed.status).toBe('failed');
      await membership('PUT');
      hook.answerWith(answers.ok);
      const retry = await restricted.request(
        `/api/v1/webhooks/${webhookId}/deliveries/${failed.id}/retry`,
        { method: 'POST' },
      );
      expect(retry.status).toBe(202);
      const manual = await receivedDuring(async () => {});
      expect(manual.restricted).toEqual([]);
      expect(await deliveryOf(service, key.key, webhookId, lostEvent)).toMatchObject({
        status: 'cancelled',
      });
    } finally {
      hook.answerWith(answers.ok);
    }
  });

  it("makes whoever points a webhook at a new URL its owner, so another's webhook cannot be redirected to read more", async () => {
    const shared = await receiver();
    const taken = await receiver();
    const hook = await createWebhook(service, key.key, {
      url: shared.url('/shared'),
      events: ['interaction.created'],
    });
    const described = await restricted.request(`/api/v1/webhooks/${hook.id}`, {
      method: 'PUT',
      body: { description: 'still the integration' },
    });
    const resent = await restricted.request(`/api/v1/webhooks/${hook.id}`, {
      method: 'PUT',
      body: { url: shared.url('/shared') },
    });
    const redirected = await restricted.request(`/api/v1/webhooks/${hook.id}`, {
      method: 'PUT',
      body: { url: taken.url('/mine') },
    });
    await ask(helpAgent, 'What are your opening hours?');
    await ask(billingAgent, 'What is my balance?');
    await step(service);

    expect(json(described).owner).toEqual({ type: 'api_key', id: key.keyId });
    expect(json(resent).owner).toEqual({ type: 'api_key', id: key.keyId });
    expect(json(redirected).owner).toEqual({ type: 'user', id: member.id });
    expect(shared.receipts).toEqual([]);
    expect(summary(taken.receipts)).toEqual([`interaction.created ${helpAgent}`]);
  });

  it("keeps the owner when an admin saves a restricted user's webhook with its URL unchanged", async () => {
    const saved = await admin.request(`/api/v1/webhooks/${hooks.restricted?.id}`, {
      method: 'PUT',
      body: { url: hooks.restricted?.url, events: EVENTS, description: 'reviewed' },
    });
    const received = await receivedDuring(() => ask(billingAgent, 'Can I change my plan?'));

    expect(json(saved).owner).toEqual({ type: 'user', id: member.id });
    expect(received.restricted).toEqual([]);
    expect(received.admin).toHaveLength(2);
  });

  it("withholds agent and user events from a deactivated owner's webhook; data source events still arrive", async () => {
    const leaver = await createTestUser(service, { role: 'admin' });
    const inboxOfLeaver = await receiver();
    const session = await signedIn(service, leaver);
    const created = await session.request('/api/v1/webhooks', {
      method: 'POST',
      body: { url: inboxOfLeaver.url('/leaver'), events: EVENTS },
    });
    expect(created.status).toBe(201);
    const deactivated = await admin.request(`/api/v1/users/${leaver.id}`, { method: 'DELETE' });
    expect(deactivated.status).toBe(204);

    await ask(helpAgent, 'Who can see my tickets?');
    await createDataSource(service, key.key);
    await createTestUser(service, { role: 'readonly' });
    await step(service);

    expect(summary(inboxOfLeaver.receipts)).toEqual(['datasource.created -']);
  });

  it('withholds agent events from a webhook with no recorded owner until someone sends its URL', async () => {
    const legacy = await receiver();
    const hook = await createWebhook(service, key.key, {
      url: legacy.url('/legacy'),
      events: ['interaction.created', 'datasource.created'],
    });
    // As written before owners were recorded.
    await service.runtime.client.send(
      new UpdateCommand({
        TableName: parseLocalConfig({}).SVC_TABLE_NAME,
        Key: { PK: keys.orgPartition(service.orgId), SK: `${keys.webhookPrefix}${hook.id}` },
        UpdateExpression: 'REMOVE #owner',
        ExpressionAttributeNames: { '#owner': 'owner' },
      }),
    );
    const read = await api(service.url, `/api/v1/webhooks/${hook.id}`, { key: key.key });
    expect(json(read).owner).toBeNull();

    await ask(helpAgent, 'Is there a mobile app?');
    await createDataSource(service, key.key);
    await step(service);
    const before = summary(legacy.receipts);
    const claimed = await api(service.url, `/api/v1/webhooks/${hook.id}`, {
      method: 'PUT',
      key: key.key,
      body: { url: legacy.url('/legacy') },
    });
    await ask(helpAgent, 'Is there a desktop app?');
    await step(service);

    expect(before).toEqual(['datasource.created -']);
    expect(json(claimed).owner).toEqual({ type: 'api_key', id: key.keyId });
    expect(summary(legacy.receipts)).toEqual([
      'datasource.created -',
      `interaction.created ${helpAgent}`,
    ]);
  });

  it('sends the test event to a restricted owner: it carries no agent data', async () => {
    const marks = inbox.restricted?.receipts.length ?? 0;
    const response = await restricted.request(`/api/v1/webhooks/${hooks.restricted?.id}/test`, {
      method: 'POST',
    });

    expect(json(response).delivered).toBe(true);
    const [receipt] = inbox.restricted?.receipts.slice(marks) ?? [];
    expect(Object.keys(receipt?.envelope.data ?? {}).sort()).toEqual(['message', 'webhook_id']);
  });

  it("shows a delivery's payload only to who may see its kind of event (P302)", async () => {
    await receivedDuring(async () => {
      await createDataSource(service, key.key);
      await createTestUser(service, { role: 'readonly' });
      await createAgent(service, key.key, { name: 'Payloads', data_source_ids: [] });
    });
    const deliveries = await listDeliveries(service, key.key, String(hooks.admin?.id));
    const latest = (type: string) => deliveries.find((delivery) => delivery.event_type === type);
    const readers = { key: undefined, admin, unrestricted, restricted } as const;
    const statuses: Record<string, Record<string, number>> = {};
    for (const type of ['datasource.created', 'user.created', 'agent.created']) {
      const path = `/api/v1/webhooks/${hooks.admin?.id}/deliveries/${latest(type)?.id}`;
      statuses[type] = {};
      for (const [name, session] of Object.entries(readers)) {
        const read = session
          ? await session.request(path)
          : await api(service.url, path, { key: key.key });
        (statuses[type] as Record<string, number>)[name] = read.status;
      }
    }

    expect(statuses).toEqual({
      'datasource.created': { key: 200, admin: 200, unrestricted: 200, restricted: 200 },
      'user.created': { key: 200, admin: 200, unrestricted: 404, restricted: 404 },
      'agent.created': { key: 200, admin: 200, unrestricted: 200, restricted: 404 },
    });
  });
});
