#!/usr/bin/env node
// `npx svc …`: the admin CLI (D36). TypeScript is run through tsx, as `npm start` does.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
require('tsx/cjs/api').register();
require('./cli.ts');
