import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import OpenAI from 'openai';
import { api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import {
  helpCenterPages,
  htmlPage,
  type LoopbackSite,
  startLoopbackSite,
} from '../support/loopback-site';
import { parseEventStream } from '../support/sse';
import { indexWebsite } from '../support/sync';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';
import { createTestUser, signedIn, type WebSession } from '../support/web-session';

/** The other source's question: only the payroll pages answer it. */
const PAYROLL_QUESTION = 'On which day of the month are salaries paid by payroll?';
const PAYROLL_SENTENCES = [
  'Salaries are paid by payroll on the twenty-fifth day of every month.',
  'Payroll withholds the pension contribution before salaries are paid.',
];

/** What one answering path gave back, everything a caller could read of it. */
interface Observed {
  /** The status of each request the path made (all must succeed). */
  readonly statuses: readonly number[];
  /** Every body the caller received, as text: answers, sources, stream events, results. */
  readonly text: string;
  /** The chunks the path returned as sources or passages. */
  readonly chunkIds: readonly string[];
}

/**
 * An agent answers and searches only from its own data sources, on every
 * path that produces an answer or passages. Two sources of one organization
 * with distinct answers (a help center, a payroll page); the agent has only
 * the help center; each path is asked the payroll question and must return
 * nothing of the payroll source: no chunk, no URL, no sentence, in the
 * answer, its sources or its stream events. An agent on the payroll source,
 * asked the same question, proves the question has an answer to leak.
 */
describe('Agent scope on every answering path', () => {
  const clock = new TestClock();
  let service: TestService;
  const sites: LoopbackSite[] = [];
  let helpSource: string;
  let payrollSource: string;
  let helpAgent: string;
  let payrollAgent: string;
  let payrollChunkIds: string[];
  let restricted: WebSession;

  const call = (path: string, body: unknown) =>
    api(service.url, path, { method: 'POST', key: service.adminKey, body });

  beforeAll(async () => {
    service = await startTestService({ env: { SVC_ALLOW_PRIVATE_URLS: 'true' }, clock });
    sites.push(
      await startLoopbackSite(helpCenterPages),
      await startLoopbackSite(() => ({
        '/': htmlPage('Payroll handbook', PAYROLL_SENTENCES),
      })),
    );
    helpSource = (await indexWebsite(service, service.adminKey, sites[0]!.url('/'), 'Help')).source
      .id;
    payrollSource = (await indexWebsite(service, service.adminKey, sites[1]!.url('/'), 'Payroll'))
      .source.id;
    const agent = async (name: string, dataSourceId: string) => {
      const response = await call('/api/v1/agents', { name, data_source_ids: [dataSourceId] });
      expect(response.status).toBe(201);
      return json(response).id as string;
    };
    helpAgent = await agent('Help desk', helpSource);
    payrollAgent = await agent('Payroll', payrollSource);

    const payrollChunks = json(
      await call('/api/v1/semantic-search', {
        org_id: service.orgId,
        query: 'payroll salaries pension',
        data_source_ids: [payrollSource],
        top_k: 50,
        similarity_threshold: 0,
      }),
    ).chunks as Array<{ chunk_id: string }>;
    payrollChunkIds = payrollChunks.map((chunk) => chunk.chunk_id);

    // A user whose only group gives them the help desk agent: their
    // searches cover that agent's sources only.
    const admin = await signedIn(service, await createTestUser(service, { role: 'admin' }));
    const group = await admin.request('/api/v1/groups', {
      method: 'POST',
      body: { name: 'Help desk only', agent_ids: [helpAgent] },
    });
    expect(group.status).toBe(201);
    const member = await createTestUser(service, { role: 'configure' });
    const joined = await admin.request(`/api/v1/groups/${json(group).id}/members/${member.id}`, {
      method: 'PUT',
    });
    expect(joined.status).toBeLessThan(300);
    restricted = await signedIn(service, member);
  });
  afterAll(async () => {
    await service.end();
    await Promise.all(sites.map((site) => site.close()));
  });
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  const chunkIdsIn = (items: unknown): string[] =>
    ((items ?? []) as Array<{ chunk_id?: string }>).flatMap((item) =>
      item.chunk_id ? [item.chunk_id] : [],
    );

  /** Plain `POST /api/v1/query`. */
  async function plainQuery(agentId: string): Promise<Observed> {
    const response = await call('/api/v1/query', { agent_id: agentId, query: PAYROLL_QUESTION });
    return {
      statuses: [response.status],
      text: response.text,
      chunkIds: chunkIdsIn(json(response).sources),
    };
  }

  /** The same, streamed: every event, sources and deltas and the final result. */
  async function streamedQuery(agentId: string): Promise<Observed> {
    const response = await call('/api/v1/query', {
      agent_id: agentId,
      query: PAYROLL_QUESTION,
      stream: true,
    });
    const events = parseEventStream(response.text);
    expect(events.map((event) => event.event)).toContain('done');
    return {
      statuses: [response.status],
      text: response.text,
      chunkIds: events.flatMap((event) => [
        ...chunkIdsIn(event.data.sources),
        ...chunkIdsIn(event.data.result?.sources),
      ]),
    };
  }

  /** The legacy twin, `POST /api/chat`. */
  async function legacyChat(agentId: string): Promise<Observed> {
    const response = await call('/api/chat', { agentId, query: PAYROLL_QUESTION });
    return {
      statuses: [response.status],
      text: response.text,
      chunkIds: chunkIdsIn(json(response).sources),
    };
  }

  /** A follow-up in a session that began with a question the agent can answer. */
  async function followUp(agentId: string): Promise<Observed> {
    const first = await call('/api/v1/query', {
      agent_id: agentId,
      query: 'How long is the warranty on a widget?',
    });
    const second = await call('/api/v1/query', {
      agent_id: agentId,
      query: PAYROLL_QUESTION,
      session_id: json(first).metadata?.session_id,
    });
    return {
      statuses: [first.status, second.status],
      text: second.text,
      chunkIds: chunkIdsIn(json(second).sources),
    };
  }

  /** An evaluation run, answered by the eval worker as query answers. */
  async function evaluation(agentId: string): Promise<Observed> {
    const started = await call('/api/v1/evals', {
      agent_id: agentId,
      name: 'Scope check',
      questions: [{ question: PAYROLL_QUESTION }],
    });
    await service.runtime.workers.stepEvaluations();
    const read = await api(service.url, `/api/v1/evals/${json(started).id}`, {
      key: service.adminKey,
    });
    const run = json(read);
    expect(run.status).toBe('completed');
    return {
      statuses: [started.status, read.status],
      text: read.text,
      chunkIds: (run.results as Array<{ result: Record<string, unknown> }>).flatMap((item) => [
        ...chunkIdsIn(item.result?.sources),
        ...chunkIdsIn(item.result?.retrieved),
      ]),
    };
  }

  /** Semantic search over the agent's data sources, named by the caller. */
  async function searchNamingTheAgentsSources(agentId: string): Promise<Observed> {
    const agent = json(
      await api(service.url, `/api/v1/agents/${agentId}`, { key: service.adminKey }),
    );
    const response = await call('/api/v1/semantic-search', {
      org_id: service.orgId,
      query: PAYROLL_QUESTION,
      data_source_ids: agent.data_source_ids,
      similarity_threshold: 0,
    });
    return {
      statuses: [response.status],
      text: response.text,
      chunkIds: chunkIdsIn(json(response).chunks),
    };
  }

  /** Semantic search by a user whose groups give them only the help desk agent. */
  async function searchAsUserOfTheAgent(): Promise<Observed> {
    const response = await restricted.request('/api/v1/semantic-search', {
      method: 'POST',
      body: { org_id: service.orgId, query: PAYROLL_QUESTION, similarity_threshold: 0 },
    });
    return {
      statuses: [response.status],
      text: response.text,
      chunkIds: chunkIdsIn(json(response).chunks),
    };
  }

  /** An MCP tool called with the SDK's own client: everything it returned, as text. */
  async function mcpTool(name: string, args: Record<string, unknown>): Promise<Observed> {
    const client = new Client({ name: 'scope-check', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${service.url}/api/v1/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${service.adminKey}` } },
      }),
    );
    try {
      const result = await client.callTool({ name, arguments: args });
      expect(result.isError).toBeFalsy();
      return { statuses: [200], text: JSON.stringify(result), chunkIds: [] };
    } finally {
      await client.close();
    }
  }

  /** MCP's ask_agent tool. */
  const mcpAsk = (agentId: string) =>
    mcpTool('ask_agent', { agent_id: agentId, question: PAYROLL_QUESTION });

  /** MCP's search tool, narrowed to the agent. */
  const mcpSearch = (agentId: string) =>
    mcpTool('search', { agent_id: agentId, query: PAYROLL_QUESTION, top_k: 50 });

  const openai = () =>
    new OpenAI({
      baseURL: `${service.url}/api/v1/openai`,
      apiKey: service.adminKey,
      maxRetries: 0,
    });

  /** OpenAI-compatible chat completion, the agent as the model. */
  async function openAiCompletion(agentId: string): Promise<Observed> {
    const completion = await openai().chat.completions.create({
      model: agentId,
      messages: [{ role: 'user', content: PAYROLL_QUESTION }],
    });
    return {
      statuses: [200],
      text: JSON.stringify(completion),
      chunkIds: chunkIdsIn((completion as unknown as { sources: unknown }).sources),
    };
  }

  /** The same, streamed: every chunk, the last one's sources included. */
  async function openAiStream(agentId: string): Promise<Observed> {
    const stream = await openai().chat.completions.create({
      model: agentId,
      messages: [{ role: 'user', content: PAYROLL_QUESTION }],
      stream: true,
    });
    const chunks: unknown[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    return {
      statuses: [200],
      text: JSON.stringify(chunks),
      chunkIds: chunks.flatMap((chunk) => chunkIdsIn((chunk as { sources?: unknown }).sources)),
    };
  }

  const PATHS: Array<[string, (agentId: string) => Promise<Observed>]> = [
    ['plain query', plainQuery],
    ['streamed query (sources, deltas and done events)', streamedQuery],
    ['legacy chat', legacyChat],
    ['follow-up in a session', followUp],
    ['evaluation run', evaluation],
    ["semantic search over the agent's data sources", searchNamingTheAgentsSources],
    ['MCP ask_agent tool', mcpAsk],
    ['MCP search tool with the agent', mcpSearch],
    ['OpenAI-compatible chat completion', openAiCompletion],
    ['OpenAI-compatible chat completion, streamed (every chunk)', openAiStream],
  ];

  it('the payroll question has a payroll answer to leak (an agent on that source cites it)', async () => {
    const observed = await plainQuery(payrollAgent);

    expect(payrollChunkIds.length).toBeGreaterThan(0);
    expect(observed.statuses).toEqual([200]);
    expect(observed.chunkIds.some((id) => payrollChunkIds.includes(id))).toBe(true);
    expect(observed.text).toContain(sites[1]!.origin);
  });

  it.each(PATHS)('%s: nothing of the other source', async (_path, ask) => {
    const observed = await ask(helpAgent);

    expect(observed.statuses.every((status) => status >= 200 && status < 300)).toBe(true);
    expectNothingOfPayroll(observed);
  });

  it('semantic search by a user restricted to the agent: nothing of the other source', async () => {
    const observed = await searchAsUserOfTheAgent();

    expect(observed.statuses).toEqual([200]);
    // The help center is searched (something is found), the payroll page is not.
    expect(observed.chunkIds.length).toBeGreaterThan(0);
    expectNothingOfPayroll(observed);
  });

  function expectNothingOfPayroll(observed: Observed): void {
    expect(observed.chunkIds.filter((id) => payrollChunkIds.includes(id))).toEqual([]);
    for (const id of payrollChunkIds) expect(observed.text).not.toContain(id);
    expect(observed.text).not.toContain(sites[1]!.origin);
    expect(observed.text).not.toContain(payrollSource);
    expect(observed.text).not.toContain('Payroll handbook');
    for (const sentence of PAYROLL_SENTENCES) {
      // Any stretch of a payroll sentence, however the answerer trims it.
      expect(observed.text).not.toContain(sentence.slice(0, 30));
    }
  }
});
