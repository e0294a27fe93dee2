import type { Page } from '@playwright/test';
import { documentScreenshot, expect, expectAccessible, signIn, test } from './support/fixtures';
import { svc } from './support/operator-cli';
import { activeUser } from './support/users';

async function signOut(page: Page, name: string) {
  await page.getByRole('button', { name, exact: true }).click();
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
}

/**
 * P211, P261: one email, an account in each of two organizations (each with
 * its own password). Without an organization ID sign-in reaches the default
 * one (the older); "Sign in to another organization" names the other, and
 * this browser remembers, per email, the organization last signed in to.
 */
test.describe('Signing in to one of several organizations (P211, P261)', () => {
  test('a person with accounts in two organizations signs in to each', async ({
    page,
    service,
    makeAxeBuilder,
  }) => {
    const person = await activeUser(service, 'traveller', 'train');
    const second = await svc(service, ['orgs', 'create', '--name', 'Second organization']);
    const secondId = String(second.id);
    const secondPassword = 'the password of the second account';
    await svc(
      service,
      [
        'users',
        'create',
        '--org',
        secondId,
        '--email',
        person.email,
        '--name',
        'Traveller',
        '--password-stdin',
      ],
      `${secondPassword}\n`,
    );
    const banner = page.getByRole('banner');
    const organizationId = page.getByLabel('Organization ID');

    // No ID: the default account, in the older organization.
    await page.goto('/sign-in');
    await signIn(page, person.email, person.password);
    await expect(banner).toContainText('Local organization');
    await signOut(page, person.name);

    // The other organization, named.
    await page.getByText('Sign in to another organization').click();
    await organizationId.fill(secondId);
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'sign-in-organization');
    await signIn(page, person.email, secondPassword);
    await expect(banner).toContainText('Second organization');
    await signOut(page, 'Traveller');

    // This browser remembers it for that email (and for no other).
    await page.getByLabel('Email').fill('someone.else@console.test');
    await page.getByLabel('Email').press('Tab');
    await expect(organizationId).toBeHidden();
    await page.getByLabel('Email').fill(person.email.toUpperCase());
    await page.getByLabel('Email').press('Tab');
    await expect(organizationId).toHaveValue(secondId);
    await expect(page.getByText('The organization you last signed in to')).toBeVisible();
    await page.getByLabel('Password', { exact: true }).fill(secondPassword);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(banner).toContainText('Second organization');
    await signOut(page, 'Traveller');

    // Cleared, the usual one again; a wrong password with an ID names all three.
    await page.getByLabel('Email').fill(person.email);
    await page.getByLabel('Email').press('Tab');
    await organizationId.fill('');
    await page.getByLabel('Password', { exact: true }).fill(person.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(banner).toContainText('Local organization');
    await signOut(page, person.name);
    await page.getByLabel('Email').fill(person.email);
    await page.getByLabel('Email').press('Tab');
    await expect(organizationId).toHaveValue(service.orgId);
    await organizationId.fill(secondId);
    await page.getByLabel('Password', { exact: true }).fill(person.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(page.getByRole('alert')).toHaveText('Wrong email, password or organization ID.');
  });

  test('an ID that is not one is caught by the browser; SSO starts for the organization named', async ({
    page,
    makeAxeBuilder,
  }) => {
    const started: string[] = [];
    await page.route('**/api/v1/sso/start**', (route) => {
      started.push(route.request().url());
      return route.fulfill({ status: 200, contentType: 'text/plain', body: 'to the provider' });
    });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto('/sign-in?next=%2Fsettings');
    await page.getByText('Sign in to another organization').click();
    const organizationId = page.getByLabel('Organization ID');
    await expect(organizationId).toBeInViewport();
    const widths = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      client: document.documentElement.clientWidth,
    }));
    expect(widths.scroll).toBeLessThanOrEqual(widths.client);
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'sign-in-organization-phone-dark');

    await organizationId.fill('acme');
    await page.getByRole('button', { name: 'Sign in with SSO' }).click();
    expect(await organizationId.evaluate((input: HTMLInputElement) => input.validity.valid)).toBe(
      false,
    );
    await organizationId.fill('org_01hzy3k5d6e7f8g9h0j1k2m3n4');
    await page.getByRole('button', { name: 'Sign in with SSO' }).click();
    await expect(page.getByText('to the provider')).toBeVisible();

    expect(started).toHaveLength(1);
    const query = new URL(started[0] ?? '').searchParams;
    expect(Object.fromEntries(query)).toEqual({
      org_id: 'org_01hzy3k5d6e7f8g9h0j1k2m3n4',
      next: '/settings',
    });
  });
});
