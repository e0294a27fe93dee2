'use strict';
/**
 * What a Lambda bundle gets for `debug` (the esbuild alias in
 * lib/constructs/function-bundle.ts), which the OpenSearch package and
 * node-saml log through. Without a `DEBUG` variable no namespace is ever
 * enabled and nothing is written, yet loading `debug` reads the environment,
 * loads `supports-color` and opens stderr to pick colours for each logger:
 * about 3 ms of the OpenSearch client's first load. So without `DEBUG` every
 * logger is a silent one; with it, the real package is loaded (it is still
 * bundled) and behaves as it always did.
 */
function silent(namespace) {
  const log = () => {};
  log.namespace = namespace;
  log.enabled = false;
  log.extend = (suffix, delimiter = ':') => silent(`${namespace}${delimiter}${suffix}`);
  log.log = () => {};
  log.destroy = () => {};
  return log;
}
silent.enable = () => {};
silent.disable = () => '';
silent.enabled = () => false;
silent.formatters = {};
// As the package exports itself: node-saml calls `debug.default(…)`.
silent.debug = silent;
silent.default = silent;

// A path, not the package name, which the alias would turn back into this file.
module.exports = process.env.DEBUG ? require('../../node_modules/debug/src/index.js') : silent;
