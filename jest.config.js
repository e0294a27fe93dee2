/**
 * Tests are TypeScript transformed by SWC. middy and jose are published as
 * ESM only, so they are transformed too (everything else in node_modules is left alone).
 * unpdf's CommonJS entry loads its PDF.js bundle with `import()`, which jest
 * cannot run without `--experimental-vm-modules`: the entry (`.cjs`) is
 * transformed so that `import()` becomes `require()`, and `unpdf/pdfjs`,
 * exported for `import` only, is mapped to the bundle file, transformed too.
 * @type {import('jest').Config}
 */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test', '<rootDir>/web/tests/unit'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.(t|j|mj|cj)s$': [
      '@swc/jest',
      { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } },
    ],
  },
  transformIgnorePatterns: ['/node_modules/(?!(@middy|unpdf|jose)/)'],
  moduleNameMapper: { '^unpdf/pdfjs$': '<rootDir>/node_modules/unpdf/dist/pdfjs.mjs' },
  setupFiles: ['<rootDir>/test/support/jest-setup.ts'],
  // A guard against hangs, not a speed check (speed is measured in `npm run
  // bench`): suites that drive hundreds of requests through the in-process
  // runtime ran past 30 s on a busy 2-core CI machine.
  testTimeout: 90000,
  // One worker on a 2-core machine would otherwise run every suite in band, in one process whose
  // heap grows suite after suite; late suites then slowed down until 300 simultaneous requests
  // ran past the local gateway's 29 s deadline. A worker past this memory is started afresh.
  workerIdleMemoryLimit: '1GB',
  // Jest's default is one worker less than the cores: on the 2-core CI machine that is one,
  // and the second core idled through the whole run. Each worker runs one suite on one core.
  maxWorkers: 2,
};
