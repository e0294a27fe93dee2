/**
 * Import boundaries (STYLE.md §10): the domain knows nothing of I/O, use cases
 * depend on ports only, and adapters are chosen by the wiring alone.
 */
module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment:
        'Domain code must not import adapters, HTTP plumbing, wiring, use cases or any AWS SDK.',
      severity: 'error',
      from: { path: '^layers/core/domain' },
      to: {
        path: [
          '^layers/core/(adapters|http|wiring|use-cases|ports)',
          '@aws-sdk',
          'aws-cdk-lib',
          '^lib/',
          '^functions/',
        ],
      },
    },
    {
      name: 'use-cases-depend-on-ports',
      comment:
        'Use cases take their dependencies as ports; they never import adapters or SDK clients.',
      severity: 'error',
      from: { path: '^layers/core/(use-cases|ports)' },
      to: {
        path: [
          '^layers/core/(adapters|http|wiring)',
          '@aws-sdk',
          'aws-cdk-lib',
          '^lib/',
          '^functions/',
        ],
      },
    },
    {
      name: 'functions-do-not-pick-adapters',
      comment:
        "Handlers reach adapters only through their function's composition root (functions/<family>/wiring.ts).",
      severity: 'error',
      from: { path: '^functions/', pathNot: '^functions/[^/]+/wiring\\.ts$' },
      to: { path: ['^layers/core/adapters', '@aws-sdk', '^lib/local'] },
    },
    {
      name: 'cloud-wiring-is-cloud-only',
      comment:
        'The cloud adapter modules never pick a one-machine adapter: that choice is lib/local/local-dependencies.ts.',
      severity: 'error',
      from: { path: '^(layers/core/wiring/cloud|functions/[^/]+/wiring\\.ts)' },
      to: { path: ['^layers/core/adapters/local', '^layers/core/wiring/build-dependencies'] },
    },
    {
      name: 'no-local-runtime-in-lambdas',
      comment: 'The one-machine runtime never ends up in a Lambda bundle.',
      severity: 'error',
      from: { path: '^(layers|functions)/' },
      to: { path: ['^lib/local', '^bin/', 'dynalite'] },
    },
    {
      name: 'smtp-is-one-machine-only',
      comment:
        'P265: mail goes through SES in the cloud; SMTP (nodemailer) is chosen by the local runtime alone (lib/local/runtime.ts) and never reaches a Lambda bundle.',
      severity: 'error',
      from: {
        path: '^(functions|layers)/',
        pathNot: '^layers/core/adapters/mail/smtp-mailer\\.ts$',
      },
      to: { path: ['node_modules/nodemailer', '^layers/core/adapters/mail/smtp-mailer'] },
    },
    {
      name: 'runtime-never-imports-infrastructure',
      comment:
        'Issue 23 item 3: the arrows point one way. Functions and layers are what Lambda runs; lib/ (the CDK app, the local runtime, the OpenAPI generator) and bin/ build or host them, never the reverse. The route table they share lives in layers/core/http/routes/.',
      severity: 'error',
      from: { path: '^(functions|layers)/' },
      to: { path: '^(lib|bin)/' },
    },
    {
      name: 'family-declarations-are-read-by-lib-only',
      comment:
        "A family's declaration (functions/<family>/family.ts) names its handler, and the list (functions/families.ts) names every family: a Lambda that imported either would bundle other handlers. Only lib/ (the stack, the local gateway, the OpenAPI generator) reads them.",
      severity: 'error',
      from: {
        path: '^(functions|layers)/',
        pathNot: '^functions/(families|[^/]+/family)\\.ts$',
      },
      to: { path: '^functions/(families|[^/]+/family)\\.ts$' },
    },
    {
      name: 'layers-never-import-functions',
      comment:
        'Issue 23 item 3: the core is shared by every function and knows none of them; a function is a front door over it.',
      severity: 'error',
      from: { path: '^layers/' },
      to: { path: '^functions/' },
    },
    {
      name: 'console-stands-alone',
      comment:
        'P227: the web console (web/src) reaches the service over HTTP only, through its one API client typed from docs/openapi.json; it never imports server code.',
      severity: 'error',
      from: { path: '^web/src' },
      to: { path: ['^(layers|functions|lib|bin|test)/'] },
    },
    {
      name: 'server-does-not-import-the-console',
      comment:
        'P227: nothing on the server side imports the console; the local runtime serves its build output (web/dist) as files.',
      severity: 'error',
      from: { path: '^(layers|functions|lib|bin)/' },
      to: { path: '^web/' },
    },
    {
      name: 'console-screens-do-not-reach-up-into-the-shell',
      comment:
        'The app shell (web/src/app) composes the screens; screens, components and shared state never import it back. What they share with the shell (the session context, the public paths) lives in web/src/state and web/src/navigation.',
      severity: 'error',
      from: { path: '^web/src/', pathNot: '^web/src/app/' },
      to: { path: '^web/src/app/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
