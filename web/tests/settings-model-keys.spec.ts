import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import {
  ADMIN,
  test as base,
  documentScreenshot,
  expect,
  expectAccessible,
  signedIn,
} from './support/fixtures';
import { ApiSession, callWithKey, invitedUser } from './support/http';

const FIXTURES = join(__dirname, '..', '..', 'test', 'fixtures', 'openai');
/** The one key the stand-in accepts; any other is refused as OpenAI refuses a bad key. */
const GOOD_KEY = 'sk-proj-consoleGoodKey000000000000000000000001';
const BAD_KEY = 'sk-proj-consoleRevokedKey00000000000000000009';

interface ModelServer {
  /** OpenAI's API (`/openai/v1`) and an OpenAI-compatible server (`/custom/v1`), both on loopback. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 standing in for OpenAI and for an
 * OpenAI-compatible endpoint: `GET …/models` lists models for GOOD_KEY and
 * answers anything else 401 with OpenAI's own error body (the fixture the
 * API's tests use), which is the verdict the page must show.
 */
async function startModelServer(): Promise<ModelServer> {
  const models = readFileSync(join(FIXTURES, 'models-list.json'), 'utf8');
  const refused = readFileSync(join(FIXTURES, 'error-401-invalid-api-key.json'), 'utf8');
  const server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    const known = path === '/openai/v1/models' || path === '/custom/v1/models';
    const good = request.headers.authorization === `Bearer ${GOOD_KEY}`;
    response.writeHead(known ? (good ? 200 : 401) : 404, { 'Content-Type': 'application/json' });
    response.end(known ? (good ? models : refused) : '{"error":{"message":"no such route"}}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// biome-ignore lint/complexity/noBannedTypes: no test-scoped fixtures of its own
const test = base.extend<{}, { models: ModelServer }>({
  models: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright's fixture signature
    async ({}, use) => {
      const models = await startModelServer();
      await use(models);
      await models.close();
    },
    { scope: 'worker' },
  ],
  // OpenAI is reached at the stand-in (P137); the custom endpoint, customer input, passes
  // the D35 guard only because private addresses are allowed here, as in the API's tests.
  serviceEnv: [
    async ({ models }, use) =>
      use({
        SVC_ALLOW_PRIVATE_URLS: 'true',
        SVC_MODEL_KEY_OPENAI_URL: `${models.url}/openai/v1`,
      }),
    { scope: 'worker' },
  ],
});

/** Writes are rate-limited per user: this file's writes are its own administrator's. */
async function ownAdministrator(page: Page, base: string, name: string) {
  const admin = await ApiSession.signIn(base, ADMIN.email, ADMIN.password);
  const user = await invitedUser(admin, base, 'admin', name);
  await signedIn(page, user.email, user.password, '/settings');
  await page
    .getByRole('navigation', { name: 'Settings' })
    .getByRole('link', { name: 'Model keys' })
    .click();
  await expect(page.getByRole('heading', { name: 'Model keys', level: 2 })).toBeVisible();
}

test.describe('Settings: model keys', () => {
  test('keys are checked with the provider, a refusal shows its verdict, and a key in use is not deleted', async ({
    page,
    service,
    models,
    makeAxeBuilder,
  }) => {
    await ownAdministrator(page, service.url, 'Model keeper');
    const openai = page.getByRole('region', { name: 'OpenAI', exact: true });
    const compatible = page.getByRole('region', { name: 'OpenAI-compatible' });
    await expect(page.getByRole('region', { name: 'Anthropic' })).toBeVisible();

    // Refused by the provider: its own words, and nothing saved.
    await compatible.getByLabel('Endpoint URL').fill(`${models.url}/custom/v1`);
    await compatible.getByLabel('API key').fill(BAD_KEY);
    await compatible.getByRole('button', { name: 'Save OpenAI-compatible key' }).click();
    const verdict = compatible.getByRole('alert');
    await expect(verdict).toContainText('OpenAI-compatible refused this key');
    await expect(verdict).toContainText('Incorrect API key provided');
    await expect(verdict).toContainText('Reference: req_');
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'settings-model-key-refused-light');

    // Accepted: listed by its last four characters only.
    await openai.getByLabel('Name (optional)').fill('Support account');
    await openai.getByLabel('API key').fill(GOOD_KEY);
    await openai.getByRole('button', { name: 'Save OpenAI key' }).click();
    await expect(openai.getByRole('status')).toContainText(`…${GOOD_KEY.slice(-4)}`);
    await expect(openai.getByLabel('API key')).toHaveValue('');
    const row = page.getByRole('row', { name: /Support account/ });
    await expect(row).toContainText(`…${GOOD_KEY.slice(-4)}`);
    await expect(row).toContainText('No agent');
    expect(await page.content()).not.toContain(GOOD_KEY);

    // Two agents start answering with it after the page was read.
    const listed = await callWithKey<{ model_keys: Array<{ id: string; name: string | null }> }>(
      service.url,
      service.adminKey,
      'GET',
      '/api/v1/model-keys?limit=100',
    );
    const keyId = listed.model_keys.find((key) => key.name === 'Support account')?.id;
    const agents: Record<string, string> = {};
    for (const name of ['Returns helper', 'Billing bot']) {
      const agent = await callWithKey<{ id: string }>(
        service.url,
        service.adminKey,
        'POST',
        '/api/v1/agents',
        { name, data_source_ids: [], model: 'gpt-4o-mini', model_key_id: keyId },
      );
      agents[name] = agent.id;
    }

    // The delete is refused (409), naming them.
    await row.getByRole('button', { name: 'Delete Support account' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete “Support account”?' });
    await confirm.getByRole('button', { name: 'Delete key' }).click();
    await expect(confirm.getByRole('alert')).toContainText(
      'Used by Billing bot and Returns helper: choose another key for them first.',
    );
    await expect(confirm.getByRole('link', { name: 'Change Returns helper' })).toHaveAttribute(
      'href',
      `/agents/${agents['Returns helper']}/edit`,
    );
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'settings-model-key-in-use-light');
    await confirm.getByRole('button', { name: 'Cancel' }).click();

    // Read again, the list names them too, each a link to the agent.
    await page.reload();
    const used = page.getByRole('row', { name: /Support account/ });
    await expect(used.getByRole('link')).toHaveText(['Billing bot', 'Returns helper']);
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'settings-model-keys-light');
    await used.getByRole('link', { name: 'Returns helper' }).click();
    await expect(page).toHaveURL(new RegExp(`/agents/${agents['Returns helper']}$`));
  });

  test('the provider rate limiting, an unused key deleted, dark theme and a phone', async ({
    page,
    service,
    makeAxeBuilder,
  }) => {
    await ownAdministrator(page, service.url, 'Model tidier');
    const openai = page.getByRole('region', { name: 'OpenAI', exact: true });
    await openai.getByLabel('Name (optional)').fill('Spare');
    await openai.getByLabel('API key').fill(GOOD_KEY);
    await openai.getByRole('button', { name: 'Save OpenAI key' }).click();
    await expect(page.getByRole('row', { name: /Spare/ })).toBeVisible();

    // The provider limiting the check (P132's 429): said with its wait.
    await page.route('**/api/v1/model-keys', (route) =>
      route.request().method() === 'POST'
        ? route.fulfill({
            status: 429,
            headers: { 'Retry-After': '20' },
            json: {
              error: {
                code: 'rate_limit_exceeded',
                message: 'The provider is rate limiting this key',
                details: { reason: 'model_provider', retry_after: 20, provider: 'anthropic' },
              },
              request_id: 'req_mk429',
            },
          })
        : route.fallback(),
    );
    const anthropic = page.getByRole('region', { name: 'Anthropic' });
    await anthropic.getByLabel('API key').fill('sk-ant-api03-consoleKey0000000000000000');
    await anthropic.getByRole('button', { name: 'Save Anthropic key' }).click();
    await expect(anthropic.getByRole('alert')).toContainText(
      'Anthropic is limiting requests with this key: try again in 20 s. Nothing was saved.',
    );
    await expect(anthropic.getByRole('alert')).toContainText('Reference: req_mk429');
    await page.unrouteAll();

    await page.getByRole('button', { name: 'Delete Spare' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete “Spare”?' });
    await expectAccessible(makeAxeBuilder);
    await confirm.getByRole('button', { name: 'Delete key' }).click();
    await expect(page.getByRole('status').first()).toContainText('Model key “Spare” deleted.');
    await expect(page.getByRole('row', { name: /Spare/ })).toHaveCount(0);

    await page.emulateMedia({ colorScheme: 'dark' });
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'settings-model-keys-dark');
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(page.getByRole('region', { name: 'OpenAI-compatible' })).toBeVisible();
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'settings-model-keys-phone-dark');
  });
});
