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
