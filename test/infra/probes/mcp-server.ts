/**
 * Bundled as a Lambda function is (with its stand-ins for ajv and zod 3),
 * then run: the MCP server answers `initialize`, lists its tools with their
 * JSON Schemas and refuses a call with invalid arguments, all of which go
 * through the SDK's schema code. Prints what it saw as JSON.
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { type McpRequestContext, mcpServerFor } from '../../../functions/mcp/mcp-server';
import type { McpDependencies } from '../../../functions/mcp/wiring';

async function post(message: Record<string, unknown>): Promise<Record<string, any>> {
  const context = {
    principal: { kind: 'api_key', orgId: 'org_probe', keyId: 'key_probe', scopes: ['Execute'] },
    linkOrigin: '',
    requestId: 'req_probe',
    logger: console,
  } as unknown as McpRequestContext;
  // Nothing here reaches a dependency: listing tools and refusing arguments need none.
  const server = mcpServerFor({} as McpDependencies, context);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  const response = await transport.handleRequest(
    new Request('http://probe.invalid/api/v1/mcp', {
      method: 'POST',
      headers: {
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, ...message }),
    }),
  );
  const body = (await response.json()) as Record<string, any>;
  await server.close();
  return body;
}

async function main(): Promise<void> {
  const initialized = await post({
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'probe', version: '1' },
    },
  });
  const listed = await post({ method: 'tools/list', params: {} });
  const refused = await post({
    method: 'tools/call',
    params: { name: 'ask_agent', arguments: { agent_id: 'not-an-id' } },
  });
  process.stdout.write(
    JSON.stringify({
      server: initialized.result?.serverInfo?.name,
      tools: (
        (listed.result?.tools ?? []) as Array<{ name: string; inputSchema: { type: string } }>
      ).map((tool) => `${tool.name}:${tool.inputSchema.type}`),
      refused: refused.result?.isError === true || refused.error !== undefined,
    }),
  );
}

main().catch((error: unknown) => {
  process.stderr.write(String((error as Error).stack ?? error));
  process.exit(1);
});
