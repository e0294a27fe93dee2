import { ADMIN, expect, expectAccessible, signedIn, test } from './support/fixtures';
import { ApiSession, createAgentWithKey } from './support/http';

test.describe('Agents', () => {
  test('lists agents a page at a time, and a deep link to a page survives a reload', async ({
    page,
    service,
    makeAxeBuilder,
  }) => {
    // 21 agents make two pages of 20; a key's Write bucket holds 10 (D16), so three keys share them.
    const admin = await ApiSession.signIn(service.url, ADMIN.email, ADMIN.password);
    const keys = [
      service.adminKey,
      await admin.createKey('paging 1'),
      await admin.createKey('paging 2'),
    ];
    for (let index = 1; index <= 21; index += 1) {
      await createAgentWithKey(
        service.url,
        keys[index % 3] ?? service.adminKey,
        `Paging agent ${index}`,
      );
    }
    await signedIn(page, ADMIN.email, ADMIN.password, '/agents?page=2');

    await expect(page).toHaveURL(/\/agents\?page=2$/);
    await expect(page.getByText(/Page 2 of \d+/)).toBeVisible();
    await page.reload();
    await expect(page.getByText(/Page 2 of \d+/)).toBeVisible();
    await page.getByRole('link', { name: 'Previous page' }).click();
    await expect(page.getByRole('rowheader', { name: 'Paging agent 21' })).toBeVisible();
    await expectAccessible(makeAxeBuilder);
  });

  test("a screen's refusals say what to do, with the reference to quote", async ({ page }) => {
    await signedIn(page, ADMIN.email, ADMIN.password, '/settings');
    const refusals: Array<{
      status: number;
      headers: Record<string, string>;
      error: Record<string, unknown>;
      shown: string;
    }> = [
      {
        status: 429,
        headers: { 'Retry-After': '30' },
        error: {
          code: 'rate_limit_exceeded',
          message: 'Rate limit exceeded',
          details: { reason: 'scope_rate', retry_after: 30 },
        },
        shown: 'Too many requests: try again in 30 s.',
      },
      {
        status: 403,
        headers: {},
        error: {
          code: 'forbidden',
          message: 'Insufficient role',
          details: { required_role: 'configure', current_role: 'readonly' },
        },
        shown: 'Your role does not allow this (it needs configure).',
      },
    ];
    for (const refusal of refusals) {
      await page.route('**/api/v1/agents?*', (route) =>
        route.fulfill({
          status: refusal.status,
          headers: { ...refusal.headers, 'X-Request-Id': `req_${refusal.status}` },
          contentType: 'application/json',
          body: JSON.stringify({ error: refusal.error, request_id: `req_${refusal.status}` }),
        }),
      );
      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'Agents' })
        .click();

      const alert = page.getByRole('alert');
      await expect(alert).toContainText(refusal.shown);
      await expect(alert).toContainText(`Reference: req_${refusal.status}`);
      await expect(alert.getByRole('button', { name: 'Copy reference' })).toBeVisible();
      await page.unrouteAll();
      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'Settings' })
        .click();
    }
  });
});
