import * as z from 'zod/mini';

/**
 * POST /api/v1/mcp: one JSON-RPC 2.0 message of the Model Context Protocol,
 * or a batch of them. The MCP SDK's transport judges the rest (a malformed
 * message is answered with a JSON-RPC error), as any MCP server would.
 */
const jsonRpcMessage = z
  .looseObject({
    jsonrpc: z.literal('2.0'),
    id: z.optional(z.union([z.string(), z.number()])),
    method: z.optional(z.string()),
    params: z.optional(z.record(z.string(), z.unknown())),
  })
  .check(
    z.describe(
      'A JSON-RPC 2.0 request, notification or response of the Model Context Protocol (initialize, tools/list, tools/call, …)',
    ),
  );

export const mcpBody = z.union([jsonRpcMessage, z.array(jsonRpcMessage)]);

/** What a request is answered with: its JSON-RPC response (or responses, for a batch). */
export const mcpResult = z.union([
  z.looseObject({ jsonrpc: z.literal('2.0') }),
  z.array(z.looseObject({ jsonrpc: z.literal('2.0') })),
]);
