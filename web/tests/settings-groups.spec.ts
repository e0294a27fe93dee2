import { documentScreenshot, expect, expectAccessible, signedIn, test } from './support/fixtures';
import { ApiSession } from './support/http';
import { svc } from './support/operator-cli';
import { ownOrganization } from './support/own-organization';

/**
 * Settings, Groups (issue 22 item 3; P80–P83): a group created with a role
 * and the agents it limits to, edited, its members added and removed, and
 * deleted after asking; a refused name said under its field, a 403 in
 * words; dialogs scanned open, dark at 390 px. An organization of the
 * spec's own.
 */
test.describe('Settings: Groups', () => {
  test('creates, edits, fills and deletes a group, with refusals in words', async ({
    page,
    service,
    makeAxeBuilder,
  }) => {
    const organization = await ownOrganization(service, 'groups');
    const memberEmail = `member-${Date.now()}@console.test`;
    await svc(service, [
      'users',
      'create',
      '--org',
      organization.id,
      '--email',
      memberEmail,
      '--name',
      'Max Member',
      '--role',
      'readonly',
    ]);
    const api = await ApiSession.signIn(
      service.url,
      organization.admin.email,
      organization.admin.password,
    );
    await api.call('POST', '/api/v1/agents', { name: 'Helpdesk', data_source_ids: [] });
    await api.call('POST', '/api/v1/agents', { name: 'Sales', data_source_ids: [] });
    await signedIn(page, organization.admin.email, organization.admin.password, '/settings/groups');
    const groups = page.getByRole('region', { name: 'Groups' });
    await expect(groups).toContainText('No groups yet.');

    // Created with a role and one agent; a refused name is said under the field first.
    await groups.getByRole('button', { name: 'New group' }).click();
    const form = page.getByRole('dialog', { name: 'New group' });
    await form.getByLabel('Name').fill('Support team');
    await form.getByLabel('Role').selectOption('train');
    await form.getByLabel('Only the agents checked').check();
    await form.getByLabel('Helpdesk').check();
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'settings-group-form-light');
    await page.route('**/api/v1/groups', (route) =>
      route.request().method() === 'POST'
        ? route.fulfill({
            status: 400,
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({
              error: {
                code: 'invalid_request',
                message: 'Invalid request',
                details: { fields: [{ path: 'name', message: 'must not be empty' }] },
              },
              request_id: 'req_groups400',
            }),
          })
        : route.fallback(),
    );
    await form.getByRole('button', { name: 'Create group' }).click();
    await expect(form).toContainText('The name must not be empty.');
    await expect(form.getByLabel('Name')).toHaveAttribute('aria-invalid', 'true');
    await page.unroute('**/api/v1/groups');
    await form.getByRole('button', { name: 'Create group' }).click();
    await expect(groups.getByRole('status')).toContainText('Group Support team is created.');
    const row = groups.getByRole('row', { name: /Support team/ });
    await expect(row).toContainText('train');
    await expect(row).toContainText('Helpdesk');
    await expect(row).not.toContainText('Sales');

    // Edited: every agent.
    await groups.getByRole('button', { name: 'Edit Support team' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit Support team' });
    await expect(edit.getByLabel('Helpdesk')).toBeChecked();
    await edit.getByLabel('Every agent (this group limits nothing)').check();
    await edit.getByRole('button', { name: 'Save group' }).click();
    await expect(row).toContainText('Every agent');

    // Members: added from the organization's users, then removed.
    await groups.getByRole('button', { name: 'Members Support team' }).click();
    const members = page.getByRole('dialog', { name: 'Members of Support team' });
    await expect(members).toContainText('No members yet.');
    await members.getByLabel('Add member').selectOption({ label: `Max Member (${memberEmail})` });
    await members.getByRole('button', { name: 'Add', exact: true }).click();
    await expect(members.getByRole('status')).toContainText('Max Member is now a member');
    await expect(members.getByRole('list', { name: 'Members of Support team' })).toContainText(
      'Max Member',
    );
    await expectAccessible(makeAxeBuilder);
    await members.getByRole('button', { name: 'Remove Max Member' }).click();
    await expect(members.getByRole('status')).toContainText('no longer a member');
    await expect(members).toContainText('No members yet.');
    await members.getByRole('button', { name: 'Close' }).click();

    // Deleting asks first; a refusal is said in words, then it goes.
    await groups.getByRole('button', { name: 'Delete Support team' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete Support team?' });
    await expectAccessible(makeAxeBuilder);
    await page.route('**/api/v1/groups/*', (route) =>
      route.request().method() === 'DELETE'
        ? route.fulfill({
            status: 403,
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({
              error: {
                code: 'forbidden',
                message: 'Forbidden',
                details: { required_role: 'admin' },
              },
              request_id: 'req_groups403',
            }),
          })
        : route.fallback(),
    );
    await confirm.getByRole('button', { name: 'Delete group' }).click();
    await expect(confirm.getByRole('alert')).toContainText('Your role does not allow this');
    await expect(confirm.getByRole('alert')).toContainText('req_groups403');
    await page.unroute('**/api/v1/groups/*');
    await confirm.getByRole('button', { name: 'Delete group' }).click();
    await expect(groups.getByRole('status')).toContainText('Group Support team is deleted');
    await expect(groups).toContainText('No groups yet.');

    // Dark, at phone width, with a group listed.
    await api.call('POST', '/api/v1/groups', { name: 'Readers', role: 'readonly', agent_ids: [] });
    await page.reload();
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(groups.getByRole('row', { name: /Readers/ })).toContainText('No agent');
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'settings-groups-dark');
  });
});
