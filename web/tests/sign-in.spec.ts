import {
  ADMIN,
  documentScreenshot,
  expect,
  expectAccessible,
  signIn,
  test,
} from './support/fixtures';

test.describe('Signing in', () => {
  test('a wrong password says so, and leaves the person on sign-in', async ({ page }) => {
    await page.goto('/');

    await expect(page).toHaveURL(/\/sign-in$/);
    await signIn(page, ADMIN.email, 'not the password at all');

    await expect(page.getByRole('alert')).toHaveText('Wrong email or password.');
    await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  });

  test('a service that fails at start is said so on the sign-in page', async ({ page }) => {
    await page.route('**/api/v1/auth/me', (route) =>
      route.fulfill({
        status: 503,
        contentType: 'application/json',
        body: JSON.stringify({
          error: { code: 'service_unavailable', message: 'Unavailable', details: {} },
          request_id: 'req_unavailable',
        }),
      }),
    );

    await page.goto('/agents');

    await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
    await expect(page.getByRole('status')).toContainText('The service failed to answer');
  });

  test('throttled sign-in tells how long to wait (429 with its Retry-After)', async ({ page }) => {
    await page.route('**/api/v1/auth/login', (route) =>
      route.fulfill({
        status: 429,
        headers: { 'Retry-After': '125', 'X-Request-Id': 'req_throttled' },
        contentType: 'application/json',
        body: JSON.stringify({
          error: {
            code: 'rate_limit_exceeded',
            message: 'Too many sign-in attempts',
            details: { reason: 'login_attempts', limit: 10, retry_after: 125 },
          },
          request_id: 'req_throttled',
        }),
      }),
    );
    await page.goto('/sign-in');

    await signIn(page, ADMIN.email, ADMIN.password);

    await expect(page.getByRole('alert')).toHaveText(
      'Too many sign-in attempts. Try again in 2 min 5 s.',
    );
  });

  test('an organization that enforces SSO sends the person to SSO', async ({ page }) => {
    await page.route('**/api/v1/auth/login', (route) =>
      route.fulfill({
        status: 403,
        contentType: 'application/json',
        body: JSON.stringify({
          error: {
            code: 'forbidden',
            message: 'This organization requires signing in with SSO',
            details: { reason: 'sso_required', sso_start_url: '/api/v1/sso/start?org_id=org_x' },
          },
          request_id: 'req_sso',
        }),
      }),
    );
    await page.goto('/sign-in');

    await signIn(page, 'someone@enforced.test', 'any password at all');

    const alert = page.getByRole('alert');
    await expect(alert).toContainText('Your organization signs in with SSO');
    const link = alert.getByRole('link', { name: 'Continue with SSO' });
    await expect(link).toHaveAttribute('href', '/api/v1/sso/start?org_id=org_x');

    // The link leaves the console for the service's own page (the router does not catch /api/ links).
    await link.click();
    await expect(page).toHaveURL(/\/api\/v1\/sso\/start\?org_id=org_x$/);
    await expect(page).toHaveTitle('Authentication failed');
  });

  test('"Sign in with SSO" starts SSO for the email typed', async ({ page }) => {
    await page.goto('/sign-in');
    await page.getByLabel('Email').fill('person@example.test');

    const [request] = await Promise.all([
      page.waitForRequest((sent) => sent.url().includes('/api/v1/sso/start')),
      page.getByRole('button', { name: 'Sign in with SSO' }).click(),
    ]);

    expect(new URL(request.url()).searchParams.get('email')).toBe('person@example.test');
  });

  test('signing in lands on the shell, survives a reload, and signing out ends it', async ({
    page,
    makeAxeBuilder,
  }) => {
    await page.goto('/');
    await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'sign-in-light');

    await signIn(page, ADMIN.email, ADMIN.password);

    await expect(page).toHaveURL(/\/agents$/);
    await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
    await page.reload();
    await expect(page.getByRole('heading', { name: 'Agents' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Administrator' })).toBeVisible();

    await page.getByRole('button', { name: 'Administrator' }).click();
    await page.getByRole('button', { name: 'Sign out' }).click();

    await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
    await page.goto('/agents');
    await expect(page).toHaveURL(/\/sign-in\?next=%2Fagents$/);
  });

  test('a deep link asked for before signing in is where signing in lands', async ({ page }) => {
    await page.goto('/settings');
    await expect(page).toHaveURL(/\/sign-in\?next=%2Fsettings$/);

    await signIn(page, ADMIN.email, ADMIN.password);

    await expect(page).toHaveURL(/\/settings$/);
    await expect(page.getByRole('heading', { name: 'Settings', level: 1 })).toBeVisible();
  });

  test('a session that ends (401) returns to sign-in, then to the page the person was on', async ({
    page,
    context,
  }) => {
    await page.goto('/settings/organization');
    await signIn(page, ADMIN.email, ADMIN.password);
    await expect(page.getByRole('heading', { name: 'Settings', level: 1 })).toBeVisible();
    // Every answer re-issues the cookie (D12): the page's last call must be in before it is dropped.
    await expect(page.getByText('enterprise')).toBeVisible();

    await context.clearCookies();
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Agents' })
      .click();

    await expect(page.getByRole('status')).toHaveText(
      'Your session has ended: sign in again to continue.',
    );
    await signIn(page, ADMIN.email, ADMIN.password);
    await expect(page).toHaveURL(/\/agents$/);
    await expect(page.getByRole('heading', { name: 'Agents' })).toBeVisible();
  });

  test('the session is refreshed silently once refresh_after has passed', async ({ page }) => {
    await page.clock.install();
    await page.goto('/sign-in');
    await signIn(page, ADMIN.email, ADMIN.password);
    await expect(page.getByRole('heading', { name: 'Agents' })).toBeVisible();

    const refreshed = page.waitForResponse(
      (response) => response.url().endsWith('/api/v1/auth/refresh') && response.status() === 200,
    );
    // refresh_after is an hour before the cookie's 7 days end (D12).
    await page.clock.fastForward((167 * 3600 + 1) * 1000);

    await refreshed;
    await expect(page.getByRole('heading', { name: 'Agents' })).toBeVisible();
  });
});
