import { ADMIN, expect, expectAccessible, signedIn, test } from './support/fixtures';

test.describe('Settings', () => {
  test("shows the person's account, and the organization to an administrator", async ({
    page,
    service,
    makeAxeBuilder,
  }) => {
    await signedIn(page, ADMIN.email, ADMIN.password, '/settings');

    const account = page.getByRole('region', { name: 'Your account' });
    await expect(account).toContainText(ADMIN.email);
    await expect(account).toContainText('admin');
    const organization = page.getByRole('region', { name: 'Organization' });
    await expect(organization).toContainText('Local organization');
    await expect(organization).toContainText(service.orgId);
    await expectAccessible(makeAxeBuilder);
  });

  test('the theme can follow the system, or be light or dark', async ({ page }) => {
    await page.emulateMedia({ colorScheme: 'light' });
    await signedIn(page, ADMIN.email, ADMIN.password, '/settings');
    const html = page.locator('html');
    const theme = page.getByRole('group', { name: 'Theme' });

    await theme.getByLabel('Dark').check();
    await expect(html).toHaveAttribute('data-theme', 'dark');
    await page.emulateMedia({ colorScheme: 'dark' });
    await theme.getByLabel('Light').check();
    await expect(html).toHaveAttribute('data-theme', 'light');

    await theme.getByLabel('Follow the system').check();
    await expect(html).toHaveAttribute('data-theme', 'dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await expect(html).toHaveAttribute('data-theme', 'light');
  });
});
