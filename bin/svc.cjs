#!/usr/bin/env node
// `npx svc …`: the admin CLI. It runs from an esbuild bundle of bin/cli.ts,
// rebuilt when its sources change (bin/cli-bundle.cjs); where esbuild is not
// installed, the TypeScript runs through tsx, as `npm start` does (slower).
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const bundle = require('./cli-bundle.cjs').cliBundle();
if (bundle) {
  require(bundle);
} else {
  require('tsx/cjs/api').register();
  require('./cli.ts');
}
