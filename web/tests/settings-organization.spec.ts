import type { Request } from '@playwright/test';
import { documentScreenshot, expect, expectAccessible, signedIn, test } from './support/fixtures';
import { ownOrganization } from './support/own-organization';

/**
 * Settings, Organization (issue 22 item 2): the name renamed in place, the
 * plan read-only, and the IP allowlist as rows of CIDR ranges beside the
 * address the console is used from (P277), each row checked in the browser
 * and a list that would shut this browser out explained and never sent
 * (P77, P278). An organization of the spec's own, so its allowlist touches
 * no other spec.
 */
test.describe('Settings: Organization', () => {
  test('renames the organization and edits its allowlist, refusing one that shuts you out', async ({
    page,
    service,
    makeAxeBuilder,
  }) => {
    const organization = await ownOrganization(service, 'allowlist');
    await signedIn(
      page,
      organization.admin.email,
      organization.admin.password,
      '/settings/organization',
    );
    const facts = page.getByRole('region', { name: 'Organization' });
    await expect(facts).toContainText(organization.name);
    await expect(facts).toContainText('enterprise');
    await expect(facts).toContainText(organization.id);

    // The name, renamed in place; the shell follows.
    await facts.getByRole('button', { name: 'Rename' }).click();
    await facts.getByLabel('Name').fill('Renamed organization');
    await facts.getByRole('button', { name: 'Save name' }).click();
    await expect(facts).toContainText('Renamed organization');
    await expect(page.getByRole('banner')).toContainText('Renamed organization');
    await expect(facts.getByRole('button', { name: 'Rename' })).toBeFocused();

    const allowlist = page.getByRole('region', { name: 'IP allowlist' });
    await expect(allowlist).toContainText('You are using the console from 127.0.0.1.');
    await expect(allowlist).toContainText('No ranges: every address is allowed.');
    const puts: Request[] = [];
    page.on('request', (request) => {
      if (request.method() === 'PUT' && request.url().includes('/api/v1/organizations/'))
        puts.push(request);
    });

    // A row is checked as it is left, in the service's words.
    await allowlist.getByRole('button', { name: 'Add range' }).click();
    const first = allowlist.getByRole('textbox', { name: 'Range 1', exact: true });
    await expect(first).toBeFocused();
    await first.fill('10.1.2.3/8');
    await first.press('Tab');
    await expect(first).toHaveAttribute('aria-invalid', 'true');
    await expect(allowlist).toContainText('the range it is part of is 10.0.0.0/8');
    await first.fill('10.0.0.0/8');
    await expect(first).not.toHaveAttribute('aria-invalid', 'true');

    // A list without this browser's address is explained before anything is sent.
    const shutOut = allowlist.getByRole('alert');
    await expect(shutOut).toContainText('This list leaves out your own address, 127.0.0.1');
    await allowlist.getByRole('button', { name: 'Save allowlist' }).click();
    await expect(shutOut).toBeFocused();
    expect(puts).toHaveLength(0);
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'settings-organization-light');

    // The way out the page offers: add the address itself.
    await allowlist.getByRole('button', { name: 'Add 127.0.0.1/32' }).click();
    await expect(shutOut).toBeHidden();
    await expect(allowlist.getByRole('textbox', { name: 'Range 2', exact: true })).toHaveValue(
      '127.0.0.1/32',
    );

    // A rate limit while saving, in words and with its reference.
    await page.route('**/api/v1/organizations/*', (route) =>
      route.request().method() === 'PUT'
        ? route.fulfill({
            status: 429,
            headers: { 'Retry-After': '42', 'Content-Type': 'application/json' },
            body: JSON.stringify({
              error: { code: 'rate_limit_exceeded', message: 'Too many requests', details: {} },
              request_id: 'req_org429',
            }),
          })
        : route.fallback(),
    );
    await allowlist.getByRole('button', { name: 'Save allowlist' }).click();
    await expect(allowlist.getByRole('alert')).toContainText(
      'Too many requests: try again in 42 s',
    );
    await expect(allowlist.getByRole('alert')).toContainText('req_org429');
    await page.unroute('**/api/v1/organizations/*');

    await allowlist.getByRole('button', { name: 'Save allowlist' }).click();
    await expect(allowlist.getByRole('status')).toContainText('Saved');
    await page.reload();
    await expect(allowlist.getByRole('textbox', { name: 'Range 1', exact: true })).toHaveValue(
      '10.0.0.0/8',
    );
    await expect(allowlist.getByRole('textbox', { name: 'Range 2', exact: true })).toHaveValue(
      '127.0.0.1/32',
    );
    await expect(allowlist).toContainText('which the saved list allows');

    // Emptied, every address is allowed again.
    await allowlist.getByRole('button', { name: 'Remove range 2' }).click();
    await expect(allowlist.getByRole('alert')).toContainText('leaves out your own address');
    await allowlist.getByRole('button', { name: 'Remove range 1' }).click();
    await expect(allowlist.getByRole('button', { name: 'Add range' })).toBeFocused();
    await allowlist.getByRole('button', { name: 'Save allowlist' }).click();
    await expect(allowlist.getByRole('status')).toContainText('every address is allowed');
  });

  test('the service refusing a list names the row; below enterprise there is no editor', async ({
    page,
    service,
    makeAxeBuilder,
  }) => {
    const organization = await ownOrganization(service, 'refusal');
    await signedIn(
      page,
      organization.admin.email,
      organization.admin.password,
      '/settings/organization',
    );
    const allowlist = page.getByRole('region', { name: 'IP allowlist' });
    await expect(allowlist).toContainText('127.0.0.1');
    // What the browser cannot know (e.g. the address changed since): the service's 400 per row.
    await page.route('**/api/v1/organizations/*', (route) =>
      route.request().method() === 'PUT'
        ? route.fulfill({
            status: 400,
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({
              error: {
                code: 'invalid_request',
                message: 'Invalid IP allowlist',
                details: {
                  fields: [{ path: 'settings.ip_allowlist.0', message: 'is not allowed here' }],
                },
              },
              request_id: 'req_org400',
            }),
          })
        : route.fallback(),
    );
    await allowlist.getByRole('button', { name: 'Add range' }).click();
    await allowlist.getByRole('textbox', { name: 'Range 1', exact: true }).fill('127.0.0.0/8');
    await allowlist.getByRole('button', { name: 'Save allowlist' }).click();
    await expect(allowlist).toContainText('is not allowed here');
    await expect(allowlist.getByRole('textbox', { name: 'Range 1', exact: true })).toHaveAttribute(
      'aria-invalid',
      'true',
    );
    await expect(allowlist.getByRole('alert')).toContainText('nothing was saved');

    // Dark, at phone width.
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.setViewportSize({ width: 390, height: 844 });
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'settings-organization-dark');

    // The plan is the operator's: on "pro" the page says why there is no editor.
    const pro = await ownOrganization(service, 'pro', 'pro');
    await page.unroute('**/api/v1/organizations/*');
    await page.getByRole('button', { name: 'Ada Admin' }).click();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signedIn(page, pro.admin.email, pro.admin.password, '/settings/organization');
    await expect(allowlist).toContainText('An IP allowlist needs the enterprise plan');
    await expect(allowlist.getByRole('button', { name: 'Add range' })).toHaveCount(0);
  });
});
