import { Logger } from '@aws-lambda-powertools/logger';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { publicOriginOf } from '../../layers/core/http/console-url';
import { httpFunction } from '../../layers/core/http/http-function';
import { operationsWith, type RequestClient } from '../../layers/core/http/operation';
import { MCP_ROUTES } from '../../layers/core/http/routes/mcp';
import { mcpBody, mcpResult } from './mcp.schema';
import { mcpServerFor } from './mcp-server';
import { dependencies, type McpDependencies } from './wiring';

const operation = operationsWith<McpDependencies>();

const logger = new Logger({ serviceName: 'svc-mcp' });

/** The request headers the Streamable HTTP transport reads; nothing else is handed on. */
const TRANSPORT_HEADERS = ['accept', 'content-type', 'mcp-protocol-version', 'last-event-id'];

/**
 * The Model Context Protocol over Streamable HTTP, stateless: each POST gets
 * its own server and transport, answers with JSON, and leaves nothing
 * behind, so any instance (any Lambda, the one-machine runtime) can serve
 * any request. The middleware chain has already authenticated the caller
 * and held it to its scope, limits and allowlist, as on every route.
 */
export const operations = {
  mcp: operation({
    summary:
      'Model Context Protocol server (Streamable HTTP, stateless): the tools list_agents, ask_agent and search',
    body: mcpBody,
    responses: {
      200: {
        description:
          "The JSON-RPC response (application/json). A tool's refusal (no such agent, a disabled one) is its result with isError true",
        schema: mcpResult,
      },
      202: { description: 'A notification or response from the client, accepted' },
      406: {
        description:
          'The Accept header does not list both application/json and text/event-stream (a JSON-RPC error)',
      },
    },
    async handle({ body, principal, client, deps, requestId }) {
      const server = mcpServerFor(deps, {
        principal,
        linkOrigin: publicOriginOf(deps, client),
        requestId,
        logger,
      });
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      try {
        await server.connect(transport);
        const response = await transport.handleRequest(webRequestOf(client, body), {
          parsedBody: body,
        });
        return {
          statusCode: response.status,
          headers: Object.fromEntries(response.headers.entries()),
          body: await response.text(),
        };
      } finally {
        await server.close();
      }
    },
  }),
};

/** The request as the transport reads it: its headers and the body already parsed. */
function webRequestOf(client: RequestClient, body: unknown): Request {
  const headers = new Headers();
  for (const name of TRANSPORT_HEADERS) {
    const value = client.header(name);
    if (value !== undefined) headers.set(name, value);
  }
  return new Request('http://mcp.invalid/api/v1/mcp', {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
  });
}

export const handler = httpFunction({
  family: 'mcp',
  routes: MCP_ROUTES,
  operations,
  dependencies,
});
