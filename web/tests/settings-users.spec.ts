import { documentScreenshot, expect, expectAccessible, signedIn, test } from './support/fixtures';
import { svc } from './support/operator-cli';
import { ownOrganization } from './support/own-organization';

/**
 * Settings, Users (issue 22 item 3): the list with role, status and last
 * sign-in; "Invite user" showing the link to copy; a taken email said under
 * its field; a new invitation; role, sign out everywhere, deactivation and
 * back; one's own row explained; a 429 in words. An organization of the
 * spec's own, so its list and its administrator's write bucket are its own.
 */
test.describe('Settings: Users', () => {
  test('invites, manages and explains, with the failures in words', async ({
    page,
    service,
    makeAxeBuilder,
  }) => {
    const organization = await ownOrganization(service, 'people');
    const colleague = {
      email: `colleague-${Date.now()}@console.test`,
      password: 'the colleague password',
    };
    await svc(
      service,
      [
        'users',
        'create',
        '--org',
        organization.id,
        '--email',
        colleague.email,
        '--name',
        'Cora Colleague',
        '--role',
        'readonly',
        '--password-stdin',
      ],
      `${colleague.password}\n`,
    );
    await signedIn(page, organization.admin.email, organization.admin.password, '/settings/users');
    const users = page.getByRole('region', { name: 'Users' });
    const me = users.getByRole('row', { name: /Ada Admin \(you\)/ });
    await expect(me).toContainText('admin');
    await expect(me).toContainText('Active');
    await expect(me).not.toContainText('Never');
    await expect(users.getByRole('row', { name: /Cora Colleague/ })).toContainText('Never');
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'settings-users-light');

    // Invite: the link to copy, and the words that it went by mail too.
    const invitee = `invitee-${Date.now()}@console.test`;
    await users.getByRole('button', { name: 'Invite user' }).click();
    const dialog = page.getByRole('dialog', { name: 'Invite user' });
    await dialog.getByLabel('Email').fill(invitee);
    await dialog.getByLabel('Name').fill('Ivy Invitee');
    await dialog.getByLabel('Role').selectOption('train');
    await expectAccessible(makeAxeBuilder);
    await dialog.getByRole('button', { name: 'Send invitation' }).click();
    const sent = page.getByRole('dialog', { name: `Invitation for ${invitee}` });
    await expect(sent).toContainText('/invitations/accept#token=svcinv_');
    await expect(sent).toContainText(`We also sent this link to ${invitee} by mail`);
    await expect(sent.getByRole('button', { name: 'Copy link' })).toBeVisible();
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'settings-invitation-light');
    await sent.getByRole('button', { name: 'Done' }).click();
    await expect(users.getByRole('button', { name: 'Invite user' })).toBeFocused();
    await expect(users.getByRole('row', { name: /Ivy Invitee/ })).toContainText('Invited');

    // The same email again: said under the field (409).
    await users.getByRole('button', { name: 'Invite user' }).click();
    await dialog.getByLabel('Email').fill(invitee.toUpperCase());
    await dialog.getByLabel('Name').fill('Ivy Again');
    await dialog.getByRole('button', { name: 'Send invitation' }).click();
    await expect(dialog).toContainText('This email is already used in this organization.');
    await expect(dialog.getByLabel('Email')).toHaveAttribute('aria-invalid', 'true');
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    // A new invitation for the invited person.
    await users.getByRole('button', { name: 'Manage Ivy Invitee' }).click();
    const ivy = page.getByRole('dialog', { name: 'Ivy Invitee' });
    await ivy.getByRole('button', { name: 'Send a new invitation' }).click();
    await expect(ivy.getByRole('status')).toContainText('the earlier link no longer works');
    await expect(ivy).toContainText('/invitations/accept#token=svcinv_');
    await ivy.getByRole('button', { name: 'Close' }).click();

    // A colleague: role, sign out everywhere, deactivated after asking, and back.
    await users.getByRole('button', { name: 'Manage Cora Colleague' }).click();
    const cora = page.getByRole('dialog', { name: 'Cora Colleague' });
    await cora.getByLabel('Role').selectOption('configure');
    await cora.getByRole('button', { name: 'Change role' }).click();
    await expect(cora.getByRole('status')).toContainText('role is now configure');
    await cora.getByRole('button', { name: 'Sign out everywhere' }).click();
    await expect(cora.getByRole('status')).toContainText(
      'Every session of Cora Colleague has ended',
    );
    await cora.getByRole('button', { name: 'Deactivate' }).click();
    await expect(cora).toContainText('Deactivate Cora Colleague? Every session');
    await expectAccessible(makeAxeBuilder);
    await cora.getByRole('button', { name: 'Deactivate Cora Colleague' }).click();
    await expect(cora.getByRole('status')).toContainText('Cora Colleague is deactivated');
    await expect(users.getByRole('row', { name: /Cora Colleague/ })).toContainText('Deactivated');
    await cora.getByRole('button', { name: 'Reactivate' }).click();
    await expect(cora.getByRole('status')).toContainText('active again');

    // A rate limit, in words with its reference.
    await page.route('**/api/v1/users/*', (route) =>
      route.request().method() === 'PUT'
        ? route.fulfill({
            status: 429,
            headers: { 'Retry-After': '30', 'Content-Type': 'application/json' },
            body: JSON.stringify({
              error: { code: 'rate_limit_exceeded', message: 'Too many requests', details: {} },
              request_id: 'req_users429',
            }),
          })
        : route.fallback(),
    );
    await cora.getByLabel('Role').selectOption('train');
    await cora.getByRole('button', { name: 'Change role' }).click();
    await expect(cora.getByRole('alert')).toContainText('Too many requests: try again in 30 s');
    await expect(cora.getByRole('alert')).toContainText('req_users429');
    await page.keyboard.press('Escape');
    await expect(cora).toBeHidden();
    await expect(users.getByRole('button', { name: 'Manage Cora Colleague' })).toBeFocused();

    // One's own row: what the service refuses to do to oneself is explained, not offered.
    await users.getByRole('button', { name: 'Manage Ada Admin' }).click();
    const self = page.getByRole('dialog', { name: 'Ada Admin' });
    await expect(self).toContainText('You cannot change your own role or deactivate yourself');
    await expect(self.getByRole('button', { name: 'Deactivate' })).toHaveCount(0);
    await expect(self.getByLabel('Role')).toHaveCount(0);
    await self.getByRole('button', { name: 'Close' }).click();

    // Dark, at phone width.
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(users.getByRole('button', { name: 'Invite user' })).toBeVisible();
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'settings-users-dark');
  });

  test('pages as the API pages: 20 a page, the page in the address', async ({ page, service }) => {
    const organization = await ownOrganization(service, 'paging');
    // Twenty more people would spend minutes of write budget: the real answer, its total raised.
    const asked: string[] = [];
    await page.route('**/api/v1/users?*', async (route) => {
      asked.push(new URL(route.request().url()).search);
      const response = await route.fetch();
      const body = (await response.json()) as { total: number };
      await route.fulfill({ response, json: { ...body, total: 45 } });
    });
    await signedIn(page, organization.admin.email, organization.admin.password, '/settings/users');
    const users = page.getByRole('region', { name: 'Users' });
    await expect(users.getByRole('table')).toContainText('45 users');
    const pager = users.getByRole('navigation', { name: 'Pages of users' });
    await expect(pager).toContainText('Page 1 of 3');
    await pager.getByRole('link', { name: 'Next page' }).click();
    await expect(page).toHaveURL(/\/settings\/users\?page=2$/);
    await expect(pager).toContainText('Page 2 of 3');
    expect(asked).toContain('?limit=20&offset=20');
    await page.reload();
    await expect(pager).toContainText('Page 2 of 3');
  });
});
