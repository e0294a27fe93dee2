import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expectNestedError } from '../support/error-shapes';
import { api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { helpCenterPages, type LoopbackSite, startLoopbackSite } from '../support/loopback-site';
import { indexWebsite } from '../support/sync';
import { createKey, createTenant, type TestKey } from '../support/tenants';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';

const WARRANTY_QUESTION = 'How long is the warranty on a widget?';

interface AskResult {
  readonly answer: string;
  readonly sources: Array<{ number: number; title: string; link: string | null; passage: string }>;
  readonly session_id: string;
  readonly interaction_id: string;
}

/**
 * The MCP server at /api/v1/mcp, driven by the official SDK's own client over
 * Streamable HTTP against the real local runtime: it finds the tools, lists
 * the agents, asks one (answer and cited sources as structured content,
 * recorded as an MCP interaction), searches, and is held to the same keys,
 * scopes and tenants as every route.
 */
describe('MCP server (Streamable HTTP, stateless)', () => {
  const clock = new TestClock();
  let service: TestService;
  let site: LoopbackSite;
  let agentId: string;
  let sourceId: string;
  let executeKey: TestKey;
  const clients: Client[] = [];

  /** An SDK client connected with `key` as its bearer token. */
  async function connect(key: string): Promise<Client> {
    const client = new Client({ name: 'e2e-host', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${service.url}/api/v1/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  beforeAll(async () => {
    service = await startTestService({ env: { SVC_ALLOW_PRIVATE_URLS: 'true' }, clock });
    site = await startLoopbackSite(helpCenterPages);
    sourceId = (await indexWebsite(service, service.adminKey, site.url('/'), 'Help')).source.id;
    const created = await api(service.url, '/api/v1/agents', {
      method: 'POST',
      key: service.adminKey,
      body: { name: 'Help desk', data_source_ids: [sourceId] },
    });
    expect(created.status).toBe(201);
    agentId = json(created).id;
    executeKey = await createKey(service, service.orgId, { scopes: ['Execute'] });
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await service.end();
    await site.close();
  });
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  it('offers list_agents, ask_agent and search, each described with a JSON schema', async () => {
    const client = await connect(executeKey.key);

    const { tools } = await client.listTools();

    expect(tools.map((tool) => tool.name).sort()).toEqual(['ask_agent', 'list_agents', 'search']);
    for (const tool of tools) {
      expect(tool.description?.length).toBeGreaterThan(40);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
    }
    const ask = tools.find((tool) => tool.name === 'ask_agent');
    expect(ask?.inputSchema.required).toEqual(['agent_id', 'question']);
    expect(Object.keys(ask?.inputSchema.properties ?? {}).sort()).toEqual([
      'agent_id',
      'question',
      'session_id',
    ]);
  });

  it('lists the agents the key may use', async () => {
    const client = await connect(executeKey.key);

    const result = await client.callTool({ name: 'list_agents', arguments: {} });

    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({
      agents: [{ id: agentId, name: 'Help desk', data_source_ids: [sourceId] }],
    });
  });

  it('asks an agent: the answer and its sources (title, link, quoted passage), recorded as an MCP interaction', async () => {
    const client = await connect(executeKey.key);

    const result = await client.callTool({
      name: 'ask_agent',
      arguments: { agent_id: agentId, question: WARRANTY_QUESTION },
    });

    expect(result.isError).toBeFalsy();
    const asked = result.structuredContent as unknown as AskResult;
    expect(asked.answer).toMatch(/two year warranty/i);
    expect(asked.sources.length).toBeGreaterThan(0);
    const warranty = asked.sources.find((source) => source.link === site.url('/warranty'));
    expect(warranty).toEqual({
      number: expect.any(Number),
      title: 'Warranty',
      link: site.url('/warranty'),
      passage: expect.stringMatching(/two year warranty/),
    });
    expect(asked.answer).toContain(`[${warranty?.number}]`);
    // Hosts that read only text get the answer and its sources as text.
    const text = (result.content as Array<{ type: string; text: string }>)[0]?.text ?? '';
    expect(text).toContain(asked.answer);
    expect(text).toContain(site.url('/warranty'));

    const listed = await api(service.url, `/api/v1/interactions?agent_id=${agentId}&limit=100`, {
      key: service.adminKey,
    });
    const recorded = (json(listed).interactions as Array<{ id: string }>).find(
      (interaction) => interaction.id === asked.interaction_id,
    );
    expect(recorded).toMatchObject({
      id: asked.interaction_id,
      agent_id: agentId,
      session_id: asked.session_id,
      query: WARRANTY_QUESTION,
      channel: 'mcp',
      key_id: executeKey.keyId,
    });
  });

  it('continues a conversation with the session_id an answer gave', async () => {
    const client = await connect(executeKey.key);
    const first = (
      await client.callTool({
        name: 'ask_agent',
        arguments: { agent_id: agentId, question: WARRANTY_QUESTION },
      })
    ).structuredContent as unknown as AskResult;

    const followUp = await client.callTool({
      name: 'ask_agent',
      arguments: {
        agent_id: agentId,
        question: 'Does it cover drops?',
        session_id: first.session_id,
      },
    });

    const second = followUp.structuredContent as unknown as AskResult;
    expect(second.session_id).toBe(first.session_id);
    expect(second.answer).toMatch(/dropping/i);
  });

  it('searches an agent’s data sources: passages with title and link, no answer', async () => {
    const client = await connect(executeKey.key);

    const result = await client.callTool({
      name: 'search',
      arguments: { query: 'express shipping next business day', agent_id: agentId, top_k: 3 },
    });

    expect(result.isError).toBeFalsy();
    const { passages } = result.structuredContent as {
      passages: Array<{ title: string; link: string; passage: string; data_source_id: string }>;
    };
    expect(passages.length).toBeGreaterThan(0);
    expect(passages.length).toBeLessThanOrEqual(3);
    expect(passages[0]).toMatchObject({
      title: 'Shipping',
      link: site.url('/shipping'),
      passage: expect.stringMatching(/Express shipping arrives the next business day/),
      data_source_id: sourceId,
    });
  });

  it('reports an unknown agent as the tool’s error, in the API’s words', async () => {
    const client = await connect(executeKey.key);

    const result = await client.callTool({
      name: 'ask_agent',
      arguments: { agent_id: 'agt_00000000000000000000000000', question: WARRANTY_QUESTION },
    });

    expect(result.isError).toBe(true);
    expect(result.content).toEqual([{ type: 'text', text: expect.stringMatching(/No agent/) }]);
  });

  it('answers 401 without a key and with a wrong one, and the SDK client fails to connect', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'x', version: '1' },
      },
    };
    const headers = { accept: 'application/json, text/event-stream' };

    const without = await api(service.url, '/api/v1/mcp', {
      method: 'POST',
      body: initialize,
      headers,
    });
    const wrong = await api(service.url, '/api/v1/mcp', {
      method: 'POST',
      key: `${service.adminKey.slice(0, -4)}AAAA`,
      body: initialize,
      headers,
    });

    expectNestedError(without, 401, 'unauthorized');
    expectNestedError(wrong, 401, 'unauthorized');
    const client = new Client({ name: 'e2e-host', version: '1.0.0' });
    await expect(
      client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/api/v1/mcp`))),
    ).rejects.toThrow(/401|nauthorized/);
  });

  it('refuses a key without the Execute scope with 403', async () => {
    const readOnly = await createKey(service, service.orgId, { scopes: ['Read'] });

    await expect(connect(readOnly.key)).rejects.toThrow(/403|Execute/);
  });

  it('keeps tenants apart: another organization neither lists nor asks this one’s agent', async () => {
    const other = await createTenant(service, { name: 'Tenant B' });
    const client = await connect(other.key);

    const listed = await client.callTool({ name: 'list_agents', arguments: {} });
    const asked = await client.callTool({
      name: 'ask_agent',
      arguments: { agent_id: agentId, question: WARRANTY_QUESTION },
    });
    const searched = await client.callTool({
      name: 'search',
      arguments: { query: 'warranty', data_source_ids: [sourceId] },
    });

    expect(listed.structuredContent).toEqual({ agents: [] });
    expect(asked.isError).toBe(true);
    expect(asked.content).toEqual([{ type: 'text', text: `No agent ${agentId}` }]);
    expect(searched.structuredContent).toEqual({ passages: [] });
  });

  it('has no standing stream or session to open or close: GET and DELETE answer 405', async () => {
    const get = await api(service.url, '/api/v1/mcp', {
      key: executeKey.key,
      headers: { accept: 'text/event-stream' },
    });
    const del = await api(service.url, '/api/v1/mcp', { method: 'DELETE', key: executeKey.key });

    expect(get.status).toBe(405);
    expect(del.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });
});
