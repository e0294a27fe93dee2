import { readFileSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { agentWithHelpPage, ask, giveFeedback } from './support/asked-questions';
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
 * Interactions (issue 21 item 9): filtered by agent, dates and feedback in
 * the address; one opened in full; the whole filtered list as CSV.
 */
test.describe('Interactions', () => {
  // One pair of agents for the file: "Lamp support" has 22 interactions (two pages, the questions
  // the tests open on the first), "Lamp sales" one.
  const run = Date.now().toString(36);
  const support = { id: '', name: `Lamp support ${run}` };
  const sales = { id: '', name: `Lamp sales ${run}` };
  const FORMULA = '=1+1 how long is the warranty?';

  test.beforeAll(async ({ service }) => {
    test.setTimeout(60_000);
    Object.assign(support, await agentWithHelpPage(service.url, service.adminKey, support.name));
    Object.assign(sales, await agentWithHelpPage(service.url, service.adminKey, sales.name));
    const key = service.adminKey;
    for (let index = 1; index <= 19; index += 1) {
      await ask(service.url, key, support.id, `Is shipping free, question ${index}?`);
    }
    await ask(service.url, key, support.id, FORMULA);
    const wifi = await ask(service.url, key, support.id, 'Which Wi-Fi does the lamp need?');
    const returns = await ask(service.url, key, support.id, 'Can I return the lamp for a refund?');
    await ask(service.url, key, sales.id, 'Does the warranty cover liquids?');
    await giveFeedback(service.url, key, returns, 'positive', 'Clear and right');
    await giveFeedback(service.url, key, wifi, 'negative', 'Said "2.4 GHz", but\nnot how to check');
  });

  test('filters by agent and feedback, keeps them in the address, and opens one in full', async ({
    page,
    makeAxeBuilder,
  }) => {
    await signedIn(page, ADMIN.email, ADMIN.password, '/interactions');
    await expect(page.getByRole('heading', { name: 'Interactions', level: 1 })).toBeVisible();
    const filters = page.getByRole('form', { name: 'Filter interactions' });

    await filters.getByLabel('Agent').selectOption({ label: support.name });
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    await expect(page).toHaveURL(new RegExp(`agent_id=${support.id}`));
    await expect(page.getByRole('table')).toContainText('22 interactions match the filters');
    await expect(page.getByText('Page 1 of 2')).toBeVisible();
    await page.getByRole('link', { name: 'Next page' }).click();
    await expect(page.getByText('Page 2 of 2')).toBeVisible();
    await expect(page.getByRole('rowheader')).toHaveCount(2);
    await expectAccessible(makeAxeBuilder);

    await filters.getByLabel('Feedback').selectOption({ label: 'Negative' });
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    await expect(page).toHaveURL(/feedback=negative/);
    await expect(page).not.toHaveURL(/page=/);
    await page.reload();
    await expect(page.getByRole('table')).toContainText('1 interaction matches the filters');
    await expect(filters.getByLabel('Agent')).toHaveValue(support.id);
    await expect(filters.getByLabel('Feedback')).toHaveValue('negative');

    const question = page.getByRole('button', { name: 'Which Wi-Fi does the lamp need?' });
    await question.click();
    const dialog = page.getByRole('dialog', { name: 'Interaction' });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByRole('heading', { name: 'Question' })).toBeVisible();
    await expect(dialog).toContainText('Which Wi-Fi does the lamp need?');
    await expect(dialog.getByRole('heading', { name: 'Answer' })).toBeVisible();
    const sources = dialog.getByRole('list').first().getByRole('listitem');
    await expect(sources.first()).toContainText(
      /Rank \d+ · score \d\.\d{3} · similarity \d\.\d{3}/,
    );
    await expect(sources.first()).toContainText('Nimbus Lamp help');
    await expect(dialog).toContainText('Negative');
    await expect(dialog).toContainText('Said "2.4 GHz", but');
    await expect(dialog).toContainText(support.name);
    await expectAccessible(makeAxeBuilder);
    await page.keyboard.press('Escape');
    await expect(dialog).toHaveCount(0);
    await expect(question).toBeFocused();
  });

  test('the screenshots: the list and one interaction open, light and dark', async ({ page }) => {
    await signedIn(page, ADMIN.email, ADMIN.password, `/interactions?agent_id=${support.id}`);
    await expect(page.getByText('Page 1 of 2')).toBeVisible();
    for (const theme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: theme });
      await documentScreenshot(page, `interactions-${theme}`);
    }
    // Opened from a short list, so the page is no taller than the dialog's backdrop.
    await page.goto(`/interactions?agent_id=${support.id}&feedback=positive`);
    for (const theme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: theme });
      await page.getByRole('button', { name: 'Can I return the lamp for a refund?' }).click();
      await expect(page.getByRole('dialog', { name: 'Interaction' })).toContainText(
        'Clear and right',
      );
      await documentScreenshot(page, `interaction-open-${theme}`);
      await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
    }
  });

  test('downloads every page of the filtered list as CSV, quoted and safe to open', async ({
    page,
  }) => {
    await signedIn(page, ADMIN.email, ADMIN.password, `/interactions?agent_id=${support.id}`);
    await expect(page.getByText('Page 1 of 2')).toBeVisible();
    const csv = await downloadCsv(page);

    const lines = csv.replace(/^\uFEFF/, '').split('\r\n');
    expect(lines[0]).toMatch(/^id,created_at,agent_id,agent_name,question,answer,feedback/);
    // Every page (22 rows; the screen shows 20), one row each, newest first.
    expect(csv.match(/\r\nint_/g)).toHaveLength(22);
    // RFC 4180: quotes doubled, a line break kept inside a quoted field.
    expect(csv).toContain('negative,"Said ""2.4 GHz"", but\nnot how to check"');
    // A cell a spreadsheet would run as a formula is written as text.
    expect(csv).toContain(`,'${FORMULA},`);
    expect(csv).not.toContain(`,${FORMULA}`);
    await expect(page.getByRole('status').filter({ hasText: 'Downloaded' })).toHaveText(
      'Downloaded 22 interactions.',
    );
  });

  test('an export waits out a short rate limit, and says so when the wait is long', async ({
    page,
  }) => {
    await signedIn(page, ADMIN.email, ADMIN.password, `/interactions?agent_id=${support.id}`);
    await expect(page.getByText('Page 1 of 2')).toBeVisible();
    let refusals = 0;
    const wait = { seconds: 1 };
    // The export asks for 200 a page; the screen for 20: only the export is refused, once.
    await page.route('**/api/v1/interactions?*limit=200*', async (route) => {
      if (refusals > 0 && wait.seconds === 1) return route.continue();
      refusals += 1;
      return route.fulfill(tooMany(wait.seconds));
    });
    const csv = await downloadCsv(page);
    expect(csv.match(/\r\nint_/g)).toHaveLength(22);
    expect(refusals).toBe(1);

    wait.seconds = 600;
    await page.getByRole('button', { name: 'Download CSV' }).click();
    const alert = page.getByRole('alert');
    await expect(alert).toContainText('Too many requests: try again in 10 min.');
    await expect(alert).toContainText('Reference: req_export');
  });

  test('refusals and empty results in words', async ({ page, service }) => {
    await signedIn(page, ADMIN.email, ADMIN.password, '/agents');
    const nav = page.getByRole('navigation', { name: 'Main' });
    await page.route('**/api/v1/interactions?*', (route) =>
      route.fulfill({
        status: 403,
        headers: { 'X-Request-Id': 'req_403' },
        contentType: 'application/json',
        body: JSON.stringify({
          error: {
            code: 'forbidden',
            message: 'Insufficient role',
            details: { required_role: 'train', current_role: 'readonly' },
          },
          request_id: 'req_403',
        }),
      }),
    );
    await nav.getByRole('link', { name: 'Interactions' }).click();
    await expect(page.getByRole('alert')).toContainText(
      'Your role does not allow this (it needs train).',
    );
    await expect(page.getByRole('alert')).toContainText('Reference: req_403');
    await page.unrouteAll();
    await page.route('**/api/v1/interactions?*', (route) => route.fulfill(tooMany(30)));
    await page.reload();
    await expect(page.getByRole('alert')).toContainText('Too many requests: try again in 30 s.');
    await page.unrouteAll();

    const tomorrow = new Date(Date.now() + 24 * 3600 * 1000).toISOString().slice(0, 10);
    await page.goto(`/interactions?start_date=${tomorrow}`);
    await expect(page.getByText('No interactions match these filters.')).toBeVisible();
    const filters = page.getByRole('form', { name: 'Filter interactions' });
    await filters.getByLabel('To').fill('2020-01-01');
    await filters.getByRole('button', { name: 'Apply filters' }).click();
    await expect(filters.getByRole('alert')).toHaveText(
      'The start date is after the end date: pick dates in order.',
    );

    // P81: a user whose group allows one agent sees that agent's interactions, and only it to pick.
    const admin = await ApiSession.signIn(service.url, ADMIN.email, ADMIN.password);
    const email = `confined-${run}@console.test`;
    const invited = await admin.invite(email, 'Confined', 'readonly');
    const group = await admin.call<{ id: string }>('POST', '/api/v1/groups', {
      name: `Sales only ${run}`,
      agent_ids: [sales.id],
    });
    await admin.call('PUT', `/api/v1/groups/${group.id}/members/${invited.id}`);
    const password = 'a confined password';
    await fetch(`${service.url}/api/v1/auth/invitations/accept`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ token: invited.token, password }),
    });
    await page.context().clearCookies();
    await signedIn(page, email, password, '/interactions');
    await expect(page.getByRole('table')).toContainText('1 interaction, newest first');
    await expect(page.getByRole('rowheader')).toHaveText(['Does the warranty cover liquids?']);
    await expect(
      page
        .getByRole('form', { name: 'Filter interactions' })
        .getByLabel('Agent')
        .getByRole('option'),
    ).toHaveText(['All agents', sales.name]);
  });

  test('works at 390 px in the dark', async ({ page, makeAxeBuilder }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.emulateMedia({ colorScheme: 'dark' });
    await signedIn(page, ADMIN.email, ADMIN.password, `/interactions?agent_id=${support.id}`);
    await expect(page.getByText('Page 1 of 2')).toBeVisible();
    await expectAccessible(makeAxeBuilder);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(390);
    await page.getByRole('button', { name: 'Can I return the lamp for a refund?' }).click();
    await expect(page.getByRole('dialog', { name: 'Interaction' })).toBeVisible();
    await expectAccessible(makeAxeBuilder);
  });
});

function tooMany(seconds: number) {
  return {
    status: 429,
    headers: { 'Retry-After': String(seconds), 'X-Request-Id': 'req_export' },
    contentType: 'application/json',
    body: JSON.stringify({
      error: {
        code: 'rate_limit_exceeded',
        message: 'Rate limit exceeded',
        details: { reason: 'scope_rate', retry_after: seconds },
      },
      request_id: 'req_export',
    }),
  };
}

async function downloadCsv(page: Page): Promise<string> {
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Download CSV' }).click(),
  ]);
  expect(download.suggestedFilename()).toMatch(/^interactions-\d{4}-\d{2}-\d{2}\.csv$/);
  const path = await download.path();
  return readFileSync(path, 'utf8');
}
