/**
 * Tests are TypeScript transformed by SWC. middy is published as ESM only, so
 * it is transformed too (everything else in node_modules is left alone).
 * @type {import('jest').Config}
 */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.(t|j|mj)s$': [
      '@swc/jest',
      { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } },
    ],
  },
  transformIgnorePatterns: ['/node_modules/(?!(@middy)/)'],
  setupFiles: ['<rootDir>/test/support/jest-setup.ts'],
  testTimeout: 30000,
};
