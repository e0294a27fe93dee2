import {
  ADMIN,
  documentScreenshot,
  expect,
  expectAccessible,
  signedIn,
  test,
} from './support/fixtures';
import { ApiSession } from './support/http';

/**
 * The screens that exist today, in the navigation's order (P231: a link is
 * shown only for a screen that is built; issue 21 names the full list:
 * Agents, Data sources, Knowledge base, Interactions, Analytics, Settings; issue 22
 * adds Evaluations after Analytics).
 */
const NAV_LINKS = [
  'Agents',
  'Data sources',
  'Knowledge base',
  'Interactions',
  'Analytics',
  'Evaluations',
  'Settings',
];

test.describe('The shell', () => {
  test('names the organization, links the screens by their exact names, and marks the current one', async ({
    page,
    makeAxeBuilder,
  }) => {
    await signedIn(page, ADMIN.email, ADMIN.password);

    const nav = page.getByRole('navigation', { name: 'Main' });
    await expect(nav.getByRole('link')).toHaveText(NAV_LINKS);
    await expect(page.getByRole('banner')).toContainText('Local organization');
    await expect(nav.getByRole('link', { name: 'Agents', exact: true })).toHaveAttribute(
      'aria-current',
      'page',
    );
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'shell-light');

    await nav.getByRole('link', { name: 'Settings', exact: true }).click();
    await expect(page).toHaveURL(/\/settings$/);
    await page
      .getByRole('navigation', { name: 'Settings' })
      .getByRole('link', { name: 'Organization' })
      .click();
    await expect(page.getByRole('heading', { name: 'Organization' })).toBeVisible();
    await expect(page.getByText('enterprise')).toBeVisible();
    await expectAccessible(makeAxeBuilder);
  });

  test('a readonly user sees only what their role allows', async ({ page, service }) => {
    const admin = await ApiSession.signIn(service.url, ADMIN.email, ADMIN.password);
    const email = `reader-${Date.now()}@console.test`;
    const invited = await admin.invite(email, 'Reader', 'readonly');
    const password = 'a readonly password';
    await fetch(`${service.url}/api/v1/auth/invitations/accept`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ token: invited.token, password }),
    });

    await signedIn(page, email, password, '/settings');

    // D13: readonly views agents and their own account, never the organization's settings (admin).
    await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link')).toHaveText(
      NAV_LINKS,
    );
    await expect(page.getByRole('heading', { name: 'Your account' })).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Organization' })).toHaveCount(0);
    await page.getByRole('button', { name: 'Reader' }).click();
    await expect(page.getByText('Role: readonly')).toBeVisible();
  });

  test('an address that is no page says so inside the shell', async ({ page, makeAxeBuilder }) => {
    await signedIn(page, ADMIN.email, ADMIN.password, '/no/such/page');

    await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
    await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
    await expectAccessible(makeAxeBuilder);
  });

  test('dark theme: follows the system, and the toggle switches it', async ({
    page,
    makeAxeBuilder,
  }) => {
    await page.emulateMedia({ colorScheme: 'dark' });
    await signedIn(page, ADMIN.email, ADMIN.password);
    const html = page.locator('html');
    await expect(html).toHaveAttribute('data-theme', 'dark');
    await expect(page.getByRole('button', { name: 'Dark theme' })).toHaveAttribute(
      'aria-pressed',
      'true',
    );
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'shell-dark');

    await page.getByRole('button', { name: 'Dark theme' }).click();
    await expect(html).toHaveAttribute('data-theme', 'light');
    await page.reload();
    await expect(html).toHaveAttribute('data-theme', 'light');

    await page.getByRole('button', { name: 'Dark theme' }).click();
    await expect(html).toHaveAttribute('data-theme', 'dark');
    await page.getByRole('button', { name: 'Administrator' }).click();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'sign-in-dark');
  });

  test('at 390 px wide nothing scrolls sideways and every link is reachable', async ({
    page,
    makeAxeBuilder,
  }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await signedIn(page, ADMIN.email, ADMIN.password, '/settings');

    const widths = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      client: document.documentElement.clientWidth,
    }));
    expect(widths.scroll).toBeLessThanOrEqual(widths.client);
    for (const name of NAV_LINKS) {
      await expect(page.getByRole('link', { name, exact: true })).toBeInViewport();
    }
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'shell-phone');
  });

  test('every control is reached by keyboard, with a visible focus', async ({ page }) => {
    await signedIn(page, ADMIN.email, ADMIN.password);
    await page.getByRole('heading', { name: 'Agents' }).waitFor();

    // Start from the top of the document, as a person arriving at the page does (the screen may
    // have moved the focus into its content, and the shared runtime's lists grow with other specs).
    await page.evaluate(() => {
      document.body.tabIndex = -1;
      document.body.focus();
      document.body.removeAttribute('tabindex');
    });
    const expected = ['Skip to content', 'Dark theme', 'Administrator', ...NAV_LINKS];
    const reached: string[] = [];
    // Until every control of the shell has had the focus (the screen's own controls may come between).
    for (let step = 0; step < 30 && !expected.every((name) => reached.includes(name)); step += 1) {
      await page.keyboard.press('Tab');
      const focused = await page.evaluate(() => {
        const element = document.activeElement as HTMLElement | null;
        if (!element || element === document.body) return null;
        const style = getComputedStyle(element);
        return {
          name: element.textContent?.trim() ?? '',
          outline: style.outlineStyle !== 'none' && Number.parseFloat(style.outlineWidth) > 0,
        };
      });
      if (!focused) continue;
      reached.push(focused.name);
      expect(focused.outline, `focus is visible on "${focused.name}"`).toBe(true);
    }
    for (const name of expected) expect(reached).toContain(name);

    // The user menu opens and closes from the keyboard; Escape returns the focus to its button.
    await page.getByRole('button', { name: 'Administrator' }).focus();
    await page.keyboard.press('Enter');
    await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(page.getByRole('button', { name: 'Sign out' })).toBeHidden();
    await expect(page.getByRole('button', { name: 'Administrator' })).toBeFocused();
  });
});
