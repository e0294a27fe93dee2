import type { Route } from '../route';

/**
 * The Model Context Protocol server: the `mcp` function's rows of the route
 * table (layers/core/http/routes/route-table.ts). Stateless Streamable HTTP:
 * every JSON-RPC message is a POST answered on its own, so there is no GET
 * stream to open and no session to DELETE (both answer 405).
 */
export const MCP_ROUTES: readonly Route[] = [
  {
    method: 'POST',
    path: '/api/v1/mcp',
    family: 'mcp',
    operation: 'mcp',
    scope: 'Execute',
    role: 'readonly',
    api: 'v1',
    // Its ask tool answers with an agent, so the day's tokens hold it as they hold a query.
    spendsTokens: true,
  },
];
