import { documentScreenshot, expect, expectAccessible, test } from './support/fixtures';

// A runtime started without SVC_BOOTSTRAP_ADMIN_EMAIL: nobody can sign in yet (P228).
test.use({ withAdmin: false });

test.describe('Creating the first administrator', () => {
  test('is offered on this machine while nobody exists, signs the person in, then is gone', async ({
    page,
    browser,
    makeAxeBuilder,
  }) => {
    await page.goto('/agents');

    await expect(page).toHaveURL(/\/setup$/);
    await expect(page.getByRole('heading', { name: 'Create the administrator' })).toBeVisible();
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'first-administrator');
    await page.getByLabel('Email').fill('first@console.test');
    await page.getByLabel('Name').fill('First Admin');
    await page.getByLabel('Password', { exact: true }).fill('the first password');
    await page.getByLabel('Confirm password').fill('the first password');
    await page.getByRole('button', { name: 'Create the administrator' }).click();

    await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'First Admin' })).toBeVisible();

    // Another browser (no session) now gets sign-in: the page is gone for good.
    const other = await browser.newPage();
    await other.goto(new URL('/setup', page.url()).href);
    await expect(other.getByRole('heading', { name: 'Sign in' })).toBeVisible();
    await expect(other).toHaveURL(/\/sign-in/);
    await other.close();
  });
});
