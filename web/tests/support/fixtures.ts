import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { test as base, expect, type Page } from '@playwright/test';
import { type LocalService, startLocalService } from './local-service';

/** The administrator the shared runtime makes at start (SVC_BOOTSTRAP_ADMIN_EMAIL). */
export const ADMIN = { email: 'admin@console.test', password: 'a long enough password' } as const;

interface WorkerFixtures {
  /** false: a runtime nobody can sign in to yet (the first administrator's page). */
  readonly withAdmin: boolean;
  /** Settings the runtime starts with (a spec may point connectors at loopback stand-ins). */
  readonly serviceEnv: Readonly<Record<string, string>>;
  readonly service: LocalService;
}

interface TestFixtures {
  /** WCAG 2.1 A and AA rules, as CONSOLE.md §12 asks. */
  readonly makeAxeBuilder: () => AxeBuilder;
}

export const test = base.extend<TestFixtures, WorkerFixtures>({
  withAdmin: [true, { option: true, scope: 'worker' }],
  serviceEnv: [{}, { option: true, scope: 'worker' }],
  service: [
    async ({ withAdmin, serviceEnv }, use) => {
      const service = await startLocalService({
        ...(withAdmin ? { admin: ADMIN } : {}),
        env: serviceEnv,
      });
      await use(service);
      await service.stop();
    },
    { scope: 'worker', timeout: 90_000 },
  ],
  baseURL: async ({ service }, use) => use(service.url),
  // Every page fails its test on a script error or anything the CSP refused (no inline code, P227).
  page: async ({ page }, use) => {
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) {
        problems.push(`CSP: ${message.text()}`);
      }
    });
    await use(page);
    expect(problems).toEqual([]);
  },
  makeAxeBuilder: async ({ page }, use) =>
    use(() => new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])),
});

export { expect };

/** No serious or critical accessibility violation on the page as it is now. */
export async function expectAccessible(makeAxeBuilder: () => AxeBuilder): Promise<void> {
  const results = await makeAxeBuilder().analyze();
  const blocking = results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.help} at ${violation.nodes
          .map((node) => node.target.join(' '))
          .join(', ')}`,
    );
  expect(blocking).toEqual([]);
}

/** Signs in through the page, as a person would. */
export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/** Opens `path` signed out, signs in there and waits for the shell. */
export async function signedIn(page: Page, email: string, password: string, path = '/') {
  await page.goto(path);
  await signIn(page, email, password);
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
}

const SCREENSHOTS = resolve(__dirname, '..', '..', '..', 'docs', 'console');

/**
 * docs/console/<name>.png, written only when CONSOLE_SCREENSHOTS=1
 * (`CONSOLE_SCREENSHOTS=1 npm run test:browser`): the pictures in
 * docs/console.md are taken by the specs, not drawn by hand.
 */
export async function documentScreenshot(page: Page, name: string): Promise<void> {
  if (process.env.CONSOLE_SCREENSHOTS !== '1') return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}
