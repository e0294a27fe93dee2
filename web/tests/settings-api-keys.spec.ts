import type { Page } from '@playwright/test';
import {
  ADMIN,
  documentScreenshot,
  expect,
  expectAccessible,
  signedIn,
  test,
} from './support/fixtures';
import { ApiSession, callWithKey, invitedUser, patientFetch } from './support/http';

/** Writes are rate-limited per user: this file's writes are its own administrator's. */
async function ownAdministrator(page: Page, base: string, name: string) {
  const admin = await ApiSession.signIn(base, ADMIN.email, ADMIN.password);
  const user = await invitedUser(admin, base, 'admin', name);
  await signedIn(page, user.email, user.password, '/settings');
  await page
    .getByRole('navigation', { name: 'Settings' })
    .getByRole('link', { name: 'API keys' })
    .click();
  await expect(page.getByRole('heading', { name: 'API keys', level: 2 })).toBeVisible();
}

/** The status of one call with `key`, without retrying (a 401 must come at once). */
async function statusWithKey(base: string, key: string): Promise<number> {
  const response = await patientFetch(`${base}/api/v1/agents`, {
    headers: { Authorization: `Bearer ${key}` },
  });
  await response.arrayBuffer();
  return response.status;
}

test.describe('Settings: API keys', () => {
  test('a key is made with its scopes, shown once, used by a script, then revoked and refused at once', async ({
    page,
    service,
    makeAxeBuilder,
  }) => {
    await ownAdministrator(page, service.url, 'Key maker');

    await page.getByRole('button', { name: 'Create API key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create API key' });
    // The deployment's environment, shown before the key is made (P283).
    await expect(dialog.getByLabel('Environment')).toHaveValue('Test');
    await expect(dialog.getByLabel('Environment')).not.toBeEditable();
    await expect(dialog).toContainText('svcsk_test_');
    await expectAccessible(makeAxeBuilder);

    await dialog.getByLabel('Name').fill('Nightly export');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    await expect(dialog.getByRole('alert')).toHaveText(/Choose at least one scope/);
    await dialog.getByRole('checkbox', { name: /^Read/ }).check();
    await dialog.getByRole('checkbox', { name: /^Execute/ }).check();
    await dialog.getByRole('button', { name: 'Create key' }).click();

    const shown = page.getByRole('dialog', { name: 'API key “Nightly export” created' });
    await expect(shown.getByRole('alert')).toContainText('it will not be shown again');
    const value = await shown.getByLabel('Your new API key').inputValue();
    expect(value).toMatch(/^svcsk_test_\w+$/);
    await expect(shown.getByRole('button', { name: 'Copy key' })).toBeVisible();
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'settings-api-key-created-light');

    // A script uses it at once.
    await callWithKey(service.url, value, 'GET', '/api/v1/agents');

    // Closed, the value is gone: reopening starts empty, and the page holds it nowhere.
    await shown.getByRole('button', { name: 'Done' }).click();
    await expect(page.getByRole('dialog')).toHaveCount(0);
    expect(await page.content()).not.toContain(value);
    await page.getByRole('button', { name: 'Create API key' }).click();
    await expect(dialog.getByLabel('Name')).toHaveValue('');
    await expect(page.getByLabel('Your new API key')).toHaveCount(0);
    expect(await page.content()).not.toContain(value);
    await page.keyboard.press('Escape');
    await expect(page.getByRole('dialog')).toHaveCount(0);

    // Listed by name, scopes, last four characters and last use (after a reload).
    await page.reload();
    const row = page.getByRole('row', { name: /Nightly export/ });
    await expect(row).toContainText('Read, Execute');
    await expect(row).toContainText(`…${value.slice(-4)}`);
    await expect(row).toContainText('In the last minute');
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'settings-api-keys-light');

    // Revoking asks first, naming the key; then the key is refused at once.
    await row.getByRole('button', { name: 'Revoke Nightly export' }).click();
    const confirm = page.getByRole('dialog', { name: 'Revoke “Nightly export”?' });
    await expect(confirm).toContainText(`…${value.slice(-4)}`);
    await expectAccessible(makeAxeBuilder);
    await confirm.getByRole('button', { name: 'Revoke key' }).click();
    await expect(page.getByRole('status')).toContainText('API key “Nightly export” revoked');
    expect(await statusWithKey(service.url, value)).toBe(401);
    await expect(page.getByRole('row', { name: /Nightly export/ })).toHaveCount(0);
  });

  test('refusals in words (429, a failed revoke), dark theme and a phone', async ({
    page,
    service,
    makeAxeBuilder,
  }) => {
    await ownAdministrator(page, service.url, 'Key keeper');
    await page.getByRole('button', { name: 'Create API key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create API key' });
    await dialog.getByLabel('Name').fill('Deploy bot');
    await dialog.getByRole('checkbox', { name: /^Admin/ }).check();
    await dialog.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Done' }).click();

    // The service slowing this person down: said with the wait and a reference.
    await page.route('**/api/v1/keys', (route) =>
      route.request().method() === 'POST'
        ? route.fulfill({
            status: 429,
            headers: { 'Retry-After': '30', 'X-Request-Id': 'req_keys429' },
            json: {
              error: {
                code: 'rate_limit_exceeded',
                message: 'Too many requests',
                details: { retry_after: 30 },
              },
              request_id: 'req_keys429',
            },
          })
        : route.fallback(),
    );
    await page.getByRole('button', { name: 'Create API key' }).click();
    await dialog.getByLabel('Name').fill('Second');
    await dialog.getByRole('checkbox', { name: /^Read/ }).check();
    await dialog.getByRole('button', { name: 'Create key' }).click();
    const refusal = dialog.getByRole('alert');
    await expect(refusal).toContainText('Too many requests: try again in 30 s.');
    await expect(refusal).toContainText('Reference: req_keys429');
    await page.keyboard.press('Escape');

    // A revoke that fails says so and keeps the key listed.
    await page.route('**/api/v1/keys/*', (route) =>
      route.fulfill({
        status: 503,
        json: {
          error: { code: 'service_unavailable', message: 'down', details: {} },
          request_id: 'req_keys503',
        },
      }),
    );
    await page.getByRole('button', { name: 'Revoke Deploy bot' }).click();
    const confirm = page.getByRole('dialog', { name: 'Revoke “Deploy bot”?' });
    await confirm.getByRole('button', { name: 'Revoke key' }).click();
    await expect(confirm.getByRole('alert')).toContainText('The service failed to answer');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await expect(page.getByRole('row', { name: /Deploy bot/ })).toBeVisible();
    await page.unrouteAll();

    await page.emulateMedia({ colorScheme: 'dark' });
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'settings-api-keys-dark');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('button', { name: 'Create API key' }).click();
    await expect(dialog.getByLabel('Name')).toBeVisible();
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'settings-api-key-create-phone-dark');
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
  });
});
