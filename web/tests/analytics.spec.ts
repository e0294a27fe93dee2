import { agentWithHelpPage, ask, giveFeedback } from './support/asked-questions';
import {
  ADMIN,
  documentScreenshot,
  expect,
  expectAccessible,
  signedIn,
  test,
} from './support/fixtures';

/**
 * Analytics (issue 21 item 9, D34): date presets and a custom range, agent
 * and granularity; the cards; the charts and the tables beside them.
 */
test.describe('Analytics', () => {
  const run = Date.now().toString(36);
  const agent = { id: '', name: `Analytics lamp ${run}` };
  const today = new Date().toISOString().slice(0, 10);

  test.beforeAll(async ({ service }) => {
    test.setTimeout(60_000);
    Object.assign(agent, await agentWithHelpPage(service.url, service.adminKey, agent.name));
    const key = service.adminKey;
    const returns = await ask(service.url, key, agent.id, 'Can I return the lamp for a refund?');
    const wifi = await ask(service.url, key, agent.id, 'Which Wi-Fi does the lamp need?');
    await ask(service.url, key, agent.id, 'What does the warranty cover?');
    await giveFeedback(service.url, key, returns, 'positive');
    await giveFeedback(service.url, key, wifi, 'negative');
  });

  test('shows the cards and charts for an agent, with the figures as tables', async ({
    page,
    makeAxeBuilder,
  }) => {
    await signedIn(page, ADMIN.email, ADMIN.password, '/analytics');
    await expect(page.getByRole('heading', { name: 'Analytics', level: 1 })).toBeVisible();
    const form = page.getByRole('form', { name: 'Choose the range' });
    await expect(form.getByLabel('Period')).toHaveValue('7d');
    await form.getByLabel('Agent').selectOption({ label: agent.name });
    await form.getByRole('button', { name: 'Show' }).click();
    await expect(page).toHaveURL(new RegExp(`period=7d&agent_id=${agent.id}&granularity=day`));

    const totals = page.getByRole('region', { name: 'Totals for the range' });
    await expect(totals.getByRole('definition').first()).toHaveText('3');
    await expect(totals).toContainText('Accuracy50%');
    await expect(totals).toContainText('Citation rate100%');
    await expect(totals.getByRole('term')).toHaveText([
      'Queries',
      'Unique users',
      'Average latency',
      'Accuracy',
      'Citation rate',
      'Supported by sources',
      'Cost',
      'Model-key cost',
      'Tokens',
    ]);
    await expect(totals).toContainText('0 answers on your own model keys, at list price');

    const queries = page.getByRole('figure', { name: 'Queries per day' });
    await expect(queries).toContainText('3 queries over 7 days; the busiest day');
    await queries.getByText('Show the figures as a table').click();
    const table = queries.getByRole('table', { name: 'Queries per day (UTC)' });
    await expect(table.getByRole('row')).toHaveCount(8);
    await expect(table.getByRole('row').last().getByRole('cell')).toHaveText('3');
    const latency = page.getByRole('figure', { name: 'Latency per day, p50 and p95' });
    await expect(latency).toContainText(/Median latency \(p50\)/);
    await latency.getByText('Show the figures as a table').click();
    await expect(latency.getByRole('table').getByRole('columnheader')).toHaveText([
      'Day',
      'p50',
      'p95',
    ]);
    await expectAccessible(makeAxeBuilder);

    await page.reload();
    await expect(
      page.getByRole('form', { name: 'Choose the range' }).getByLabel('Agent'),
    ).toHaveValue(agent.id);
    await expect(page.getByRole('figure', { name: 'Queries per day' })).toBeVisible();
  });

  test('the charts take the theme: drawn again in dark colours', async ({
    page,
    makeAxeBuilder,
  }) => {
    await page.emulateMedia({ colorScheme: 'light' });
    await signedIn(page, ADMIN.email, ADMIN.password, `/analytics?period=7d&agent_id=${agent.id}`);
    const figure = page.getByRole('figure', { name: 'Queries per day' });
    await expect(figure).toContainText('3 queries over 7 days');
    await documentScreenshot(page, 'analytics-light');
    const light = await figure.screenshot();
    await page.getByRole('button', { name: 'Dark theme' }).click();
    await expect(page.getByRole('button', { name: 'Dark theme' })).toHaveAttribute(
      'aria-pressed',
      'true',
    );
    await expect.poll(async () => (await figure.screenshot()).equals(light)).toBe(false);
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'analytics-dark');
    await page.getByRole('button', { name: 'Dark theme' }).click();
  });

  test('a custom range and a granularity, and the ranges a granularity cannot cover', async ({
    page,
  }) => {
    await signedIn(page, ADMIN.email, ADMIN.password, `/analytics?agent_id=${agent.id}`);
    const form = page.getByRole('form', { name: 'Choose the range' });
    await expect(form.getByLabel('From')).toHaveCount(0);
    await form.getByLabel('Period').selectOption({ label: 'Custom range' });
    await form.getByLabel('From').fill('2026-01-01');
    await form.getByLabel('To').fill('2026-03-31');
    await form.getByLabel('Granularity').selectOption({ label: 'Hourly' });
    await form.getByRole('button', { name: 'Show' }).click();
    await expect(form.getByRole('alert')).toHaveText(
      'Hourly figures cover at most 31 days: pick a shorter range or a coarser granularity.',
    );

    await form.getByLabel('From').fill(today);
    await form.getByLabel('To').fill(today);
    await form.getByRole('button', { name: 'Show' }).click();
    await expect(page).toHaveURL(
      new RegExp(
        `period=custom&start_date=${today}&end_date=${today}&agent_id=${agent.id}&granularity=hour`,
      ),
    );
    const queries = page.getByRole('figure', { name: 'Queries per hour' });
    await queries.getByText('Show the figures as a table').click();
    await expect(queries.getByRole('table').getByRole('row')).toHaveCount(25);
  });

  test('an empty range, a 403 and a 429 in words', async ({ page }) => {
    await signedIn(
      page,
      ADMIN.email,
      ADMIN.password,
      '/analytics?period=custom&start_date=2020-01-01&end_date=2020-01-31',
    );
    await expect(page.getByText('No questions were asked in this range.')).toBeVisible();
    await expect(page.getByRole('figure')).toHaveCount(0);
    await expect(
      page.getByRole('region', { name: 'Totals for the range' }).getByRole('definition').first(),
    ).toHaveText('0');

    for (const [status, error, shown] of [
      [
        403,
        { code: 'forbidden', message: 'Insufficient role', details: { required_role: 'admin' } },
        'Your role does not allow this (it needs admin).',
      ],
      [
        429,
        {
          code: 'rate_limit_exceeded',
          message: 'Rate limit exceeded',
          details: { reason: 'scope_rate', retry_after: 45 },
        },
        'Too many requests: try again in 45 s.',
      ],
    ] as const) {
      await page.route('**/api/v1/analytics?*', (route) =>
        route.fulfill({
          status,
          headers: { 'X-Request-Id': `req_${status}` },
          contentType: 'application/json',
          body: JSON.stringify({ error, request_id: `req_${status}` }),
        }),
      );
      await page.goto('/analytics?period=30d');
      await expect(page.getByRole('alert')).toContainText(shown);
      await expect(page.getByRole('alert')).toContainText(`Reference: req_${status}`);
      await page.unrouteAll();
    }
  });

  test('works at 390 px in the dark', async ({ page, makeAxeBuilder }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.emulateMedia({ colorScheme: 'dark' });
    await signedIn(page, ADMIN.email, ADMIN.password, `/analytics?agent_id=${agent.id}`);
    await expect(page.getByRole('figure', { name: 'Queries per day' })).toContainText('3 queries');
    await expectAccessible(makeAxeBuilder);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(390);
    await documentScreenshot(page, 'analytics-phone');
  });
});
