'use strict';
/**
 * What a Lambda bundle gets for `zod/v3` and `zod-to-json-schema` (the
 * esbuild alias in lib/constructs/function-bundle.ts). Only the MCP SDK
 * imports them, to accept tool schemas written with zod 3; the MCP server's
 * tool schemas are zod 4 (functions/mcp/mcp-tools.schema.ts), for which the
 * SDK uses zod 4's own code, so zod 3 and its JSON Schema converter (about
 * 75 KB minified) were dead weight in the mcp function. Used anyway, this
 * fails loudly.
 */
function unused() {
  throw new Error(
    'zod 3 is not bundled: the MCP server writes its tool schemas with zod 4 (functions/mcp/mcp-tools.schema.ts)',
  );
}
module.exports = { object: unused, zodToJsonSchema: unused, default: unused };
