import type { Page } from '@playwright/test';
import { documentScreenshot, expect, expectAccessible, signedIn, test } from './support/fixtures';
import { ApiSession } from './support/http';
import { activeUser, signInStatus } from './support/users';

/** Fills the page's three fields and submits. */
async function changePassword(page: Page, current: string, next: string, repeated = next) {
  await page.getByLabel('Current password').fill(current);
  await page.getByLabel('New password', { exact: true }).fill(next);
  await page.getByLabel('Repeat the new password').fill(repeated);
  await page.getByRole('button', { name: 'Change password' }).click();
}

/** What the service answers to `PUT /api/v1/auth/password`, faked where it cannot be made on demand. */
async function refuse(page: Page, status: number, details: Record<string, unknown>) {
  await page.route('**/api/v1/auth/password', (route) =>
    route.fulfill({
      status,
      headers: status === 429 ? { 'Retry-After': String(details.retry_after) } : {},
      contentType: 'application/json',
      body: JSON.stringify({
        error: {
          code: status === 429 ? 'rate_limit_exceeded' : 'forbidden',
          message: 'No',
          details,
        },
        request_id: 'req_password',
      }),
    }),
  );
}

test.describe('Change password (P224)', () => {
  test('changes it, ends every other session, and this browser carries on in the new one', async ({
    page,
    service,
    makeAxeBuilder,
  }) => {
    const user = await activeUser(service, 'changer');
    const elsewhere = await ApiSession.signIn(service.url, user.email, user.password);
    await signedIn(page, user.email, user.password, '/settings');

    await page
      .getByRole('region', { name: 'Your account' })
      .getByRole('link', { name: 'Change password' })
      .click();
    await expect(page).toHaveURL(/\/settings\/password$/);
    const account = page.getByRole('region', { name: 'Your account' });
    await expect(account).toContainText(user.name);
    await expect(account).toContainText(user.email);
    await expect(page.getByText('signs you out everywhere else')).toBeVisible();
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'change-password-light');

    const second = `${user.password} changed`;
    await changePassword(page, user.password, second);

    await expect(page.getByRole('status')).toHaveText(
      'Your password is changed. Every other session has ended: sign in with the new password on your other browsers and devices.',
    );
    await expect(page.getByLabel('Current password')).toHaveValue('');
    await expect(elsewhere.call('GET', '/api/v1/auth/me')).rejects.toThrow(/: 401 /);
    expect(await signInStatus(service, user.email, user.password)).toBe(401);
    expect(await signInStatus(service, user.email, second)).toBe(200);

    // A second change needs the new session's CSRF token: the console adopted it.
    const third = `${second} again`;
    await changePassword(page, second, third);
    await expect(page.getByRole('status')).toContainText('Your password is changed.');
    await page.reload();
    await expect(page.getByRole('heading', { name: 'Change password' })).toBeVisible();
    expect(await signInStatus(service, user.email, third)).toBe(200);
  });

  test('a wrong current password is named on its field, and nothing changes', async ({
    page,
    service,
  }) => {
    const user = await activeUser(service, 'forgetful');
    await signedIn(page, user.email, user.password, '/settings/password');

    await changePassword(page, 'not the current password', 'a brand new password');

    await expect(page.getByRole('alert')).toHaveText('That is not your current password.');
    await expect(page.getByLabel('Current password')).toBeFocused();
    await expect(page.getByLabel('Current password')).toHaveAttribute('aria-invalid', 'true');
    expect(await signInStatus(service, user.email, user.password)).toBe(200);
  });

  test('the browser checks length and the repeat before anything is sent', async ({
    page,
    service,
  }) => {
    const user = await activeUser(service, 'careful');
    await signedIn(page, user.email, user.password, '/settings/password');
    let sent = false;
    await page.route('**/api/v1/auth/password', (route) => {
      sent = true;
      return route.abort();
    });
    const validity = (label: string) =>
      page.getByLabel(label, { exact: true }).evaluate((input: HTMLInputElement) => ({
        tooShort: input.validity.tooShort,
        message: input.validationMessage,
      }));

    await changePassword(page, user.password, 'short');
    expect((await validity('New password')).tooShort).toBe(true);
    await changePassword(page, user.password, 'one long new password', 'another long password');
    expect((await validity('Repeat the new password')).message).toBe('The new passwords differ.');

    expect(sent).toBe(false);
    await expect(page.getByLabel('New password', { exact: true })).toHaveAttribute(
      'maxlength',
      '256',
    );
  });

  test('refusals it cannot be made to give on demand are said in words: 429, SSO users', async ({
    page,
    service,
  }) => {
    const user = await activeUser(service, 'refused');
    await signedIn(page, user.email, user.password, '/settings/password');

    await refuse(page, 429, { reason: 'login_attempts', retry_after: 300 });
    await changePassword(page, 'a wrong guess again', 'a brand new password');
    await expect(page.getByRole('alert')).toHaveText(
      'Too many wrong passwords. Try again in 5 min.',
    );

    await page.unrouteAll();
    await refuse(page, 403, { reason: 'no_password' });
    await changePassword(page, user.password, 'a brand new password');
    await expect(page.getByRole('alert')).toHaveText(
      'You sign in with SSO, so there is no password to change here: your identity provider manages it.',
    );

    await page.unrouteAll();
    await refuse(page, 403, { reason: 'sso_required' });
    await changePassword(page, user.password, 'a brand new password');
    await expect(page.getByRole('alert')).toContainText('Your organization signs in with SSO only');
  });

  test('dark and at 390 px: nothing scrolls sideways, and it passes the scan', async ({
    page,
    service,
    makeAxeBuilder,
  }) => {
    const user = await activeUser(service, 'phone');
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.setViewportSize({ width: 390, height: 844 });
    await signedIn(page, user.email, user.password, '/settings/password');
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');

    await changePassword(page, 'not the current password', 'a brand new password');
    await expect(page.getByRole('alert')).toBeVisible();

    const widths = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      client: document.documentElement.clientWidth,
    }));
    expect(widths.scroll).toBeLessThanOrEqual(widths.client);
    await expect(page.getByRole('button', { name: 'Change password' })).toBeInViewport();
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'change-password-dark');
  });
});
