import type { Logger } from '@aws-lambda-powertools/logger';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { AppError } from '../../layers/core/domain/errors';
import type { Principal } from '../../layers/core/domain/principal';
import { agentAccessOf } from '../../layers/core/domain/principal';
import { getAgent } from '../../layers/core/use-cases/agents/agent-use-cases';
import { usableAgents } from '../../layers/core/use-cases/agents/usable-agents';
import { answerQuery, type QueryResult } from '../../layers/core/use-cases/query/answer-query';
import { semanticSearch } from '../../layers/core/use-cases/retrieval/semantic-search';
import {
  askAgentInput,
  askAgentOutput,
  listAgentsOutput,
  searchInput,
  searchOutput,
} from './mcp-tools.schema';
import { excerpt, quotedPassage } from './quoted-passage';
import type { McpDependencies } from './wiring';

/** What a request brings to its tools: who asks, and how links back to the service are made absolute. */
export interface McpRequestContext {
  readonly principal: Principal;
  readonly linkOrigin: string;
  readonly requestId: string;
  readonly logger: Logger;
}

/** The server's name and version, as `initialize` tells a host. */
const SERVER_INFO = { name: 'agent-query-service', version: '1.0.0' };

const INSTRUCTIONS =
  "Agents that answer questions from this organization's own documents, with cited sources. Call list_agents to see which agents you may use, then ask_agent with one of them; search finds passages without writing an answer.";

/**
 * The SDK checks a client's answers to elicitation requests with a JSON
 * Schema validator; this server never asks the client anything, so it needs
 * none. Given one of its own, the SDK does not build its default (ajv),
 * which the Lambda bundle leaves out (lib/bundling/ajv-unused.cjs).
 */
const NO_ELICITATION: jsonSchemaValidator = {
  getValidator() {
    throw new Error('This MCP server asks clients nothing, so it validates no answers');
  },
};

/** Passages a search returns unless the caller asks for another number. */
const DEFAULT_PASSAGES = 5;

/**
 * One MCP server for one HTTP request (stateless: nothing outlives it). Its
 * tools call the same use cases as the query and semantic search routes,
 * as the request's principal, so scopes, agent access, agents' data sources
 * and tenant isolation hold exactly as there.
 */
export function mcpServerFor(deps: McpDependencies, context: McpRequestContext): McpServer {
  const server = new McpServer(SERVER_INFO, {
    instructions: INSTRUCTIONS,
    jsonSchemaValidator: NO_ELICITATION,
  });
  const { principal } = context;

  server.registerTool(
    'list_agents',
    {
      title: 'List agents',
      description:
        'Lists the agents you may ask: their ids (for ask_agent and search), names and the data sources each answers from.',
      outputSchema: listAgentsOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    () =>
      reportingErrors(context, async () => {
        const agents = (await usableAgents(deps, principal)).map((agent) => ({
          id: agent.id,
          name: agent.name,
          data_source_ids: [...agent.data_source_ids],
        }));
        return result({ agents });
      }),
  );

  server.registerTool(
    'ask_agent',
    {
      title: 'Ask an agent',
      description:
        "Asks an agent a question. It answers from its own data sources only, citing them as [1], [2]…; each source comes with its title, link and the passage relied on. Returns a session_id: pass it back to ask a follow-up in the same conversation. If the agent's sources do not cover the question, it says so rather than guess.",
      inputSchema: askAgentInput,
      outputSchema: askAgentOutput,
      annotations: { readOnlyHint: false, idempotentHint: false, openWorldHint: false },
    },
    (args) =>
      reportingErrors(context, async () => {
        let answered: QueryResult | undefined;
        const events = answerQuery(
          deps,
          principal,
          { agent_id: args.agent_id, query: args.question, session_id: args.session_id },
          { linkOrigin: context.linkOrigin, channel: 'mcp' },
        );
        for await (const event of events) if (event.type === 'done') answered = event.result;
        if (!answered) throw new Error('The answer ended without a result');
        return result(
          {
            answer: answered.response,
            sources: answered.sources.map((source, index) => ({
              number: index + 1,
              title: source.document_title,
              link: source.document_url,
              passage: quotedPassage(source),
            })),
            session_id: answered.metadata.session_id,
            interaction_id: answered.metadata.interaction_id,
          },
          answerText(answered),
        );
      }),
  );

  server.registerTool(
    'search',
    {
      title: 'Search documents',
      description:
        "Finds the passages of the organization's documents closest in meaning to a query, best first, without writing an answer. Narrow it to one agent's data sources with agent_id, or to chosen data sources with data_source_ids; without either it covers every data source you may search.",
      inputSchema: searchInput,
      outputSchema: searchOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      reportingErrors(context, async () => {
        const dataSourceIds = await searchedDataSources(deps, principal, args);
        const found = await semanticSearch(deps, principal, {
          query: args.query,
          org_id: principal.orgId,
          top_k: args.top_k ?? DEFAULT_PASSAGES,
          similarity_threshold: 0,
          data_source_ids: dataSourceIds,
          include_embedding: false,
          rag_strategy: 'hybrid',
          link_origin: context.linkOrigin,
        });
        return result({
          passages: found.chunks.map((chunk) => ({
            title: chunk.document_title,
            link: chunk.document_url,
            passage: excerpt(chunk.text),
            score: chunk.score,
            data_source_id: chunk.data_source_id,
            document_id: chunk.document_id,
          })),
        });
      }),
  );

  return server;
}

/**
 * With an agent: its data sources (those named among them, if any), so a
 * search on an agent's behalf finds nothing the agent could not answer
 * from. Otherwise those named, or undefined for every searchable one.
 */
async function searchedDataSources(
  deps: McpDependencies,
  principal: Principal,
  args: { readonly agent_id?: string | undefined; readonly data_source_ids?: string[] | undefined },
): Promise<readonly string[] | undefined> {
  if (!args.agent_id) return args.data_source_ids;
  const agent = await getAgent(deps, principal.orgId, args.agent_id, agentAccessOf(principal));
  const named = args.data_source_ids;
  return named ? agent.data_source_ids.filter((id) => named.includes(id)) : agent.data_source_ids;
}

/** An answer as text for hosts that read no structured content: the answer, then its sources. */
function answerText(answered: QueryResult): string {
  if (answered.sources.length === 0) return answered.response;
  const sources = answered.sources.map(
    (source, index) =>
      `[${index + 1}] ${source.document_title}${source.document_url ? ` <${source.document_url}>` : ''}\n    "${quotedPassage(source)}"`,
  );
  return `${answered.response}\n\nSources:\n${sources.join('\n')}`;
}

/** A tool's result: the structured content, and the same as text (or the text given). */
function result(structured: Record<string, unknown>, text?: string): CallToolResult {
  return {
    structuredContent: structured,
    content: [{ type: 'text', text: text ?? JSON.stringify(structured, null, 2) }],
  };
}

/**
 * A refusal (no such agent, a disabled one, a provider that refused) is the
 * tool's result, marked as an error, in the words the API would use; anything
 * else is logged and reported without its internals, as the API reports a 500.
 */
async function reportingErrors(
  context: McpRequestContext,
  run: () => Promise<CallToolResult>,
): Promise<CallToolResult> {
  try {
    return await run();
  } catch (error) {
    const message =
      error instanceof AppError
        ? error.message
        : `Internal error; quote the request id ${context.requestId} when contacting support`;
    if (!(error instanceof AppError))
      context.logger.error('tool failed', { request_id: context.requestId, error: error as Error });
    return { isError: true, content: [{ type: 'text', text: message }] };
  }
}
