import { defineConfig } from '@playwright/test';

/**
 * The console's browser specs (issue 21 item 10): Debian's Chromium, never a
 * downloaded browser (web/tests/run-browser-tests.mjs finds it and passes
 * its path), against the real local runtime each spec file starts
 * (web/tests/support/fixtures.ts).
 */
const executablePath = process.env.CONSOLE_CHROMIUM;
if (!executablePath) {
  throw new Error('CONSOLE_CHROMIUM is not set: run the specs with `npm run test:browser`');
}

export default defineConfig({
  testDir: 'tests',
  testMatch: '*.spec.ts',
  outputDir: 'test-results',
  fullyParallel: false,
  workers: 1,
  forbidOnly: true,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? [['list']] : [['list']],
  use: {
    browserName: 'chromium',
    launchOptions: {
      executablePath,
      // Root in CI containers: Chromium refuses to start sandboxed as root.
      args: ['--no-sandbox', '--disable-dev-shm-usage'],
    },
    viewport: { width: 1280, height: 800 },
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
});
