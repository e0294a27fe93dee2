'use strict';
/**
 * What a Lambda bundle gets for `json11` (the esbuild alias in
 * lib/constructs/function-bundle.ts). Only the OpenSearch package's
 * Serializer requires it, and calls it only for numbers beyond 2^53 when the
 * client is built with `enableLongNumeralSupport`, which the service's
 * client (layers/core/adapters/opensearch/search-client.ts) never sets: the
 * chunk index holds no such numbers. json11 is about 28 KB minified, parsed
 * at every cold start of the functions that reach OpenSearch. Used anyway,
 * this throws, and the Serializer keeps the result of `JSON.parse` or
 * `JSON.stringify` it already has (it catches json11's failures).
 */
function unused() {
  throw new Error(
    'json11 is not bundled: the OpenSearch client is built without long numeral support (layers/core/adapters/opensearch/search-client.ts)',
  );
}
module.exports = { parse: unused, stringify: unused };
