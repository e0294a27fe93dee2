/**
 * Mutation testing of the security-critical modules (`npx stryker run`; not
 * part of CI: one run takes tens of minutes on a 2-core machine). Only these
 * modules are mutated, and only the unit and integration tests that cover
 * them run against each mutant: the end-to-end suites cover them too, but
 * start a whole service per file, which would make a run take hours. The
 * scores, per module, are in docs/quality.md.
 */

/** The modules, by what they guard (the report in docs/quality.md follows these groups). */
export const SECURITY_MODULES = {
  'authorization and roles': [
    'layers/core/domain/scopes.ts',
    'layers/core/domain/user.ts',
    'layers/core/domain/api-key.ts',
  ],
  'tenant and agent scoping': [
    'layers/core/domain/agent-access.ts',
    'layers/core/domain/group.ts',
    'layers/core/domain/principal.ts',
  ],
  'rate and plan limits': [
    'layers/core/domain/gcra.ts',
    'layers/core/use-cases/limits/admit-request.ts',
  ],
  'webhook signing': ['layers/core/domain/webhook-signature.ts'],
  'session tokens': [
    'layers/core/domain/session.ts',
    'layers/core/adapters/crypto/jose-session-tokens.ts',
  ],
};

/** The tests that cover those modules (a mutant is run against those of them that reach it). */
const COVERING_TESTS = [
  'test/unit/domain/scopes.test.ts',
  'test/unit/domain/user.test.ts',
  'test/unit/domain/api-key.test.ts',
  'test/unit/domain/agent-access.test.ts',
  'test/unit/domain/group.test.ts',
  'test/unit/domain/principal.test.ts',
  'test/unit/domain/gcra.test.ts',
  'test/integration/limits/admit-request.test.ts',
  'test/unit/domain/webhook.test.ts',
  'test/unit/domain/session.test.ts',
  'test/unit/adapters/crypto/jose-session-tokens.test.ts',
];

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'jest',
  plugins: ['@stryker-mutator/jest-runner'],
  mutate: Object.values(SECURITY_MODULES).flat(),
  jest: {
    configFile: 'jest.config.js',
    config: {
      roots: ['<rootDir>/test'],
      testMatch: COVERING_TESTS.map((file) => `<rootDir>/${file}`),
    },
    enableFindRelatedTests: true,
  },
  coverageAnalysis: 'perTest',
  // The machine is shared: two test processes at most, and `nice` on the command line.
  concurrency: 2,
  timeoutMS: 5_000,
  // Only what the tests need is copied into the sandbox.
  ignorePatterns: ['web', 'docs', 'cdk.out', 'test/bench', 'test/eval', 'test/e2e', '.stryker-tmp'],
  reporters: ['clear-text', 'progress', 'json'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 90, low: 80, break: null },
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
};
