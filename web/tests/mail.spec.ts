import type { Page } from '@playwright/test';
import { SmtpInbox } from '../../test/support/smtp-inbox';
import {
  ADMIN,
  test as base,
  documentScreenshot,
  expect,
  expectAccessible,
  signIn,
} from './support/fixtures';
import { ApiSession } from './support/http';
import { activeUser, signInStatus } from './support/users';

/**
 * Issue 22 items 9 and 11: mail as a person meets it. This spec's runtime
 * mails through a real SMTP server on loopback (`SVC_SMTP_URL`, P265) that
 * the spec starts and reads: a password reset from "Forgot password?" to
 * signing in with the new password, and an invitation accepted from the
 * link in its mail.
 */
const test = base.extend<Record<never, never>, { inbox: SmtpInbox }>({
  inbox: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this pattern
    async ({}, use) => {
      const inbox = await SmtpInbox.start();
      await use(inbox);
      await inbox.end();
    },
    { scope: 'worker' },
  ],
  serviceEnv: [async ({ inbox }, use) => use({ SVC_SMTP_URL: inbox.url }), { scope: 'worker' }],
});

/** "Forgot password?" from the sign-in page, the email given and sent. */
async function askForLink(page: Page, email: string) {
  await page.goto('/sign-in');
  await page.getByRole('link', { name: 'Forgot password?' }).click();
  await expect(page.getByRole('heading', { name: 'Reset your password' })).toBeVisible();
  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: 'Send reset link' }).click();
}

const SAME_ANSWER =
  /If an account with this email signs in with a password, we have mailed it a link/;

test.describe('Mail: password reset and invitations (P264-P270)', () => {
  test('a forgotten password is reset from the mailed link, and the person signs in with it', async ({
    page,
    service,
    inbox,
    makeAxeBuilder,
  }) => {
    const user = await activeUser(service, 'forgetful');
    const elsewhere = await ApiSession.signIn(service.url, user.email, user.password);
    const mailsBefore = inbox.mailFor(user.email).length;

    await askForLink(page, user.email);
    await expect(page.getByRole('status')).toHaveText(SAME_ANSWER);
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'forgot-password-light');
    const mail = await inbox.nextMailFor(user.email, mailsBefore);
    expect(mail.subject).toBe('Reset your password for Local organization');

    await page.goto(mail.link ?? '/password-reset');
    await expect(page.getByRole('heading', { name: 'Choose a new password' })).toBeVisible();
    // The token leaves the address bar (and so the history) once read.
    await expect(page).toHaveURL(/\/password-reset$/);
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'password-reset-light');
    const fresh = `${user.password} renewed`;
    await page.getByLabel('New password', { exact: true }).fill(fresh);
    await page.getByLabel('Confirm new password').fill(fresh);
    await page.getByRole('button', { name: 'Set new password' }).click();

    await expect(page).toHaveURL(/\/sign-in$/);
    await expect(page.getByRole('status')).toHaveText(
      'Your new password is set, and you are signed out everywhere. Sign in with it.',
    );
    await expect(elsewhere.call('GET', '/api/v1/auth/me')).rejects.toThrow(/401/);
    expect(await signInStatus(service, user.email, user.password)).toBe(401);
    await signIn(page, user.email, fresh);
    await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();

    // The link worked once.
    await page.goto(mail.link ?? '/password-reset');
    await page.getByLabel('New password', { exact: true }).fill('a third long password');
    await page.getByLabel('Confirm new password').fill('a third long password');
    await page.getByRole('button', { name: 'Set new password' }).click();
    await expect(page.getByRole('alert')).toContainText('This link no longer works');
    await expect(page.getByRole('link', { name: 'Ask for a new link' })).toBeVisible();
  });

  test('an address with no account gets the same words, and no mail', async ({ page, inbox }) => {
    const nobody = `nobody-${Date.now()}@console.test`;

    await askForLink(page, nobody);

    await expect(page.getByRole('status')).toHaveText(SAME_ANSWER);
    expect(inbox.mailFor(nobody)).toEqual([]);
  });

  test('too many requests say when to try again', async ({ page }) => {
    await page.route('**/api/v1/auth/password-reset', (route) =>
      route.fulfill({
        status: 429,
        headers: { 'Retry-After': '240' },
        contentType: 'application/json',
        body: JSON.stringify({
          error: {
            code: 'rate_limit_exceeded',
            message: 'No',
            details: { reason: 'login_attempts', retry_after: 240 },
          },
          request_id: 'req_reset',
        }),
      }),
    );

    await askForLink(page, 'someone@console.test');

    await expect(page.getByRole('alert')).toHaveText(
      'Too many requests for this address. Try again in 4 min.',
    );
  });

  test('passwords that differ are caught before anything is sent', async ({ page }) => {
    let sent = false;
    await page.route('**/api/v1/auth/password-reset/confirm', (route) => {
      sent = true;
      return route.abort();
    });
    await page.goto(`/password-reset#token=svcpwr_${'a'.repeat(43)}`);
    await page.getByLabel('New password', { exact: true }).fill('one long password');
    await page.getByLabel('Confirm new password').fill('another long password');
    await page.getByRole('button', { name: 'Set new password' }).click();

    expect(
      await page
        .getByLabel('Confirm new password')
        .evaluate((input: HTMLInputElement) => input.validationMessage),
    ).toBe('The passwords differ.');
    expect(sent).toBe(false);
  });

  test('an invitation is accepted from the link in its mail', async ({ page, service, inbox }) => {
    const admin = await ApiSession.signIn(service.url, ADMIN.email, ADMIN.password);
    const email = `mailed-${Date.now()}@console.test`;

    const created = await admin.call<{ invitation: { mailed: boolean } }>('POST', '/api/v1/users', {
      email,
      name: 'Mailed Newcomer',
      role: 'train',
    });
    const mail = await inbox.nextMailFor(email, 0);
    await page.goto(mail.link ?? '/invitations/accept');
    await page.getByLabel('New password', { exact: true }).fill('the mailed newcomer password');
    await page.getByLabel('Confirm new password').fill('the mailed newcomer password');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();

    expect(created.invitation.mailed).toBe(true);
    expect(mail.subject).toBe('You are invited to Local organization on the Agent Query Service');
    expect(mail.text).toContain('Hello Mailed Newcomer,');
    await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Mailed Newcomer' })).toBeVisible();
  });

  test('dark and at 390 px: both pages fit, and pass the scan', async ({
    page,
    makeAxeBuilder,
  }) => {
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.setViewportSize({ width: 390, height: 844 });
    const fits = async () => {
      const widths = await page.evaluate(() => ({
        scroll: document.documentElement.scrollWidth,
        client: document.documentElement.clientWidth,
      }));
      expect(widths.scroll).toBeLessThanOrEqual(widths.client);
    };

    await page.goto('/forgot-password');
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
    await expect(page.getByRole('button', { name: 'Send reset link' })).toBeInViewport();
    await fits();
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'forgot-password-dark');

    await page.goto('/password-reset#token=svcpwr_not_checked_until_sent');
    await expect(page.getByRole('button', { name: 'Set new password' })).toBeInViewport();
    await fits();
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'password-reset-dark');
  });
});
