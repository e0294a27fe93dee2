import { ADMIN, expect, expectAccessible, test } from './support/fixtures';
import { ApiSession } from './support/http';

test.describe('Accepting an invitation', () => {
  test('the invitation link sets the password and signs the person in', async ({
    page,
    service,
    makeAxeBuilder,
  }) => {
    const admin = await ApiSession.signIn(service.url, ADMIN.email, ADMIN.password);
    const invited = await admin.invite('newcomer@console.test', 'Newcomer', 'train');

    await page.goto(`/invitations/accept#token=${invited.token}`);

    await expect(page.getByRole('heading', { name: 'Accept your invitation' })).toBeVisible();
    // The token leaves the address bar (and so the history) once read.
    await expect(page).toHaveURL(/\/invitations\/accept$/);
    await expectAccessible(makeAxeBuilder);
    await page.getByLabel('New password', { exact: true }).fill('the newcomer password');
    await page.getByLabel('Confirm new password').fill('the newcomer password');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();

    await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Newcomer' })).toBeVisible();
  });

  test('a link that was used already says it no longer works', async ({ page, service }) => {
    const admin = await ApiSession.signIn(service.url, ADMIN.email, ADMIN.password);
    const invited = await admin.invite('twice@console.test', 'Twice', 'readonly');
    await fetch(`${service.url}/api/v1/auth/invitations/accept`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ token: invited.token, password: 'the first password' }),
    });

    await page.goto(`/invitations/accept#token=${invited.token}`);
    await page.getByLabel('New password', { exact: true }).fill('a second password');
    await page.getByLabel('Confirm new password').fill('a second password');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();

    await expect(page.getByRole('alert')).toContainText('This invitation link no longer works');
  });

  test('passwords that differ are caught before anything is sent', async ({ page }) => {
    let sent = false;
    await page.route('**/api/v1/auth/invitations/accept', (route) => {
      sent = true;
      return route.abort();
    });
    await page.goto('/invitations/accept#token=svcinv_not_checked_here');
    await page.getByLabel('New password', { exact: true }).fill('one long password');
    await page.getByLabel('Confirm new password').fill('another long password');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();

    expect(
      await page
        .getByLabel('Confirm new password')
        .evaluate((input: HTMLInputElement) => input.validationMessage),
    ).toBe('The passwords differ.');
    expect(sent).toBe(false);
  });

  test('the service going away mid-request is reported, not swallowed', async ({ page }) => {
    await page.route('**/api/v1/auth/invitations/accept', (route) =>
      route.abort('connectionreset'),
    );
    await page.goto('/invitations/accept#token=svcinv_whatever');
    await page.getByLabel('New password', { exact: true }).fill('a good long password');
    await page.getByLabel('Confirm new password').fill('a good long password');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();

    await expect(page.getByRole('alert')).toContainText('The service cannot be reached');
  });
});
