'use strict';
/**
 * What a Lambda bundle gets for `ajv` and `ajv-formats` (the esbuild alias
 * in lib/constructs/function-bundle.ts). Only the MCP SDK imports them, for
 * its default JSON Schema validator, which a server uses to check what a
 * client answers to an elicitation request. The MCP server
 * (functions/mcp/mcp-server.ts) never asks a client anything and gives the
 * SDK a validator of its own, so the default is never built, and ajv with
 * its formats (about 120 KB minified) was dead weight in the mcp function.
 * Used anyway, this fails loudly rather than validating nothing.
 */
function unused() {
  throw new Error(
    'ajv is not bundled: the MCP server gives the SDK its own JSON Schema validator (functions/mcp/mcp-server.ts)',
  );
}
module.exports = unused;
module.exports.default = unused;
