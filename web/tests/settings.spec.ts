import { ADMIN, expect, expectAccessible, signedIn, test } from './support/fixtures';
import { ApiSession, invitedUser } from './support/http';

test.describe('Settings', () => {
  test("shows the person's profile, and the organization's pages to an administrator", async ({
    page,
    service,
    makeAxeBuilder,
  }) => {
    await signedIn(page, ADMIN.email, ADMIN.password, '/settings');

    const sections = page.getByRole('navigation', { name: 'Settings' });
    await expect(sections.getByRole('link', { name: 'Profile' })).toHaveAttribute(
      'aria-current',
      'page',
    );
    const account = page.getByRole('region', { name: 'Your account' });
    await expect(account).toContainText(ADMIN.email);
    await expect(account).toContainText('admin');
    await expectAccessible(makeAxeBuilder);

    await sections.getByRole('link', { name: 'Organization' }).click();
    await expect(page).toHaveURL(/\/settings\/organization$/);
    const organization = page.getByRole('region', { name: 'Organization' });
    await expect(organization).toContainText('Local organization');
    await expect(organization).toContainText(service.orgId);
  });

  test('a read-only person sees only their profile, and is told whose a typed page is', async ({
    page,
    service,
  }) => {
    const admin = await ApiSession.signIn(service.url, ADMIN.email, ADMIN.password);
    const reader = await invitedUser(admin, service.url, 'readonly', 'Settings reader');
    await signedIn(page, reader.email, reader.password, '/settings');
    const sections = page.getByRole('navigation', { name: 'Settings' });
    await expect(sections.getByRole('link')).toHaveText(['Profile']);

    await page.goto('/settings/organization');
    await expect(page.getByRole('status')).toContainText('is for people with the admin role');
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
