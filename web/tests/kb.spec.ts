import type { Page } from '@playwright/test';
import {
  ADMIN,
  documentScreenshot,
  expect,
  expectAccessible,
  signedIn,
  test,
} from './support/fixtures';
import { ApiSession, patientFetch } from './support/http';
import type { LocalService } from './support/local-service';

interface Article {
  readonly id: string;
  readonly version: number;
}

/** The Admin key writes the setup (its Write bucket is not the signed-in user's, D16). */
async function withKey(
  service: LocalService,
  method: 'POST' | 'PUT',
  path: string,
  body: unknown,
): Promise<Article> {
  const response = await patientFetch(`${service.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${service.adminKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok)
    throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as Article;
}

/** A user of the given role (D13), invited by the administrator and signed up through the API. */
async function member(service: LocalService, role: 'readonly' | 'train') {
  const admin = await ApiSession.signIn(service.url, ADMIN.email, ADMIN.password);
  const email = `${role}-${Date.now()}@console.test`;
  const invited = await admin.invite(email, role === 'train' ? 'Trainer' : 'Reader', role);
  const password = `a ${role} password that is long`;
  const accepted = await fetch(`${service.url}/api/v1/auth/invitations/accept`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ token: invited.token, password }),
  });
  expect(accepted.ok).toBe(true);
  return { email, password };
}

const main = (page: Page) => page.getByRole('navigation', { name: 'Main' });

test.describe('Knowledge base', () => {
  test('a trainer writes an article beside its preview, saves versions, publishes, compares and restores', async ({
    page,
    service,
    makeAxeBuilder,
  }) => {
    await withKey(service, 'POST', '/api/v1/kb', {
      title: 'Shipping times',
      content: '# Shipping\n\nOrders ship in 2 days.',
      tags: ['logistics'],
      status: 'published',
    });
    const trainer = await member(service, 'train');
    await signedIn(page, trainer.email, trainer.password, '/agents');
    await main(page).getByRole('link', { name: 'Knowledge base', exact: true }).click();
    await expect(page.getByRole('heading', { name: 'Knowledge base' })).toBeVisible();
    await expect(page.getByRole('rowheader', { name: 'Shipping times' })).toBeVisible();

    await page.getByRole('link', { name: 'New article' }).click();
    await page.getByLabel('Title').fill('Returns policy');
    await page.getByLabel('Tags').fill('policy, billing');
    await page
      .getByLabel('Content (Markdown)')
      .fill(
        '# Returns\n\nWithin **30 days**.\n\n<script>alert(1)</script>\n\n[Form](javascript:alert(1))',
      );
    const preview = page.getByRole('region', { name: 'Preview' });
    await expect(preview.getByRole('heading', { name: 'Returns' })).toBeVisible();
    await expect(preview.locator('strong')).toHaveText('30 days');
    // P254: raw HTML is text, a script link is no link.
    await expect(preview).toContainText('<script>alert(1)</script>');
    await expect(preview.getByRole('link')).toHaveCount(0);
    await page.getByRole('button', { name: 'Save draft' }).click();

    await expect(page).toHaveURL(/\/kb\/kb_[0-9a-z]{26}$/);
    await expect(page.getByText('Draft · version 1')).toBeVisible();
    await page
      .getByLabel('Content (Markdown)')
      .fill('# Returns\n\nWithin **60 days**.\n\nKeep the receipt.');
    await expect(page.getByText('unsaved changes')).toBeVisible();
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'kb-editor-light');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(page.getByRole('status')).toHaveText('Saved as version 2.');
    await page.getByRole('button', { name: 'Publish' }).click();
    await expect(page.getByRole('status')).toHaveText('Published as version 3.');
    await expect(page.getByRole('button', { name: 'Unpublish' })).toBeVisible();

    // The list filters by status and by tag (P252), in the address.
    await page.getByRole('link', { name: 'All articles' }).click();
    await page.getByLabel('Status').selectOption('draft');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect(page).toHaveURL(/\/kb\?status=draft$/);
    await expect(page.getByText('No article matches these filters.')).toBeVisible();
    await page.getByRole('link', { name: 'Clear filters' }).click();
    await page.getByRole('link', { name: 'Articles tagged billing' }).click();
    await expect(page).toHaveURL(/\/kb\?tag=billing$/);
    await expect(page.getByRole('table')).toContainText('1 article, tagged “billing”');
    await expect(page.getByRole('rowheader')).toHaveText(['Returns policy']);
    await page.getByRole('link', { name: 'Clear filters' }).click();
    // Other specs of this worker may have written articles to the same runtime: ours are both back.
    await expect(page.getByRole('rowheader', { name: 'Returns policy' })).toBeVisible();
    await expect(page.getByRole('rowheader', { name: 'Shipping times' })).toBeVisible();
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'kb-list-light');

    // History: any two versions, by lines or by words (P255).
    await page.getByRole('link', { name: 'Returns policy' }).click();
    await page.getByRole('link', { name: 'Version history' }).click();
    const compare = page.getByRole('region', { name: 'Compare versions' });
    await expect(compare.getByRole('definition')).toHaveText('Was: Draft → Now: Published');
    await expect(compare).toContainText('The text is the same in both versions.');
    await compare.getByLabel('Older version').selectOption('1');
    await compare.getByRole('button', { name: 'Compare' }).click();
    await expect(page).toHaveURL(/from=1&to=3&by=lines$/);
    const changes = compare.getByRole('list', { name: 'Changes from version 1 to 3' });
    await expect(changes.locator('del')).toContainText([
      'Removed: Within **30 days**.',
      'Removed: <script>alert(1)</script>',
    ]);
    await expect(changes.locator('ins')).toContainText([
      'Added: Within **60 days**.',
      'Added: Keep the receipt.',
    ]);
    await expect(compare).toContainText('Text: 2 lines added, 4 lines removed.');
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'kb-diff-light');
    await compare.getByLabel('Words').check();
    await compare.getByRole('button', { name: 'Compare' }).click();
    await expect(compare.locator('ins').filter({ hasText: '60' })).toHaveCount(1);
    await expect(compare.locator('del').filter({ hasText: '30' })).toHaveCount(1);

    // Restoring version 1 saves it as version 4; the article stays published.
    await page.getByRole('button', { name: 'Restore version 1' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'restored' })).toHaveText(
      'Version 1 restored as version 4.',
    );
    await expect(page.getByRole('rowheader', { name: '4 (latest)' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Restore version 4' })).toHaveCount(0);
    await page.getByRole('link', { name: 'Back to the article' }).click();
    await expect(page.getByLabel('Content (Markdown)')).toHaveValue(/Within \*\*30 days\*\*/);
    await expect(page.getByText('Published · version 4')).toBeVisible();

    // Dark, for the documentation's pictures, scanned again.
    await page.emulateMedia({ colorScheme: 'dark' });
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'kb-editor-dark');
    await page.getByRole('link', { name: 'Version history' }).click();
    await page
      .getByRole('region', { name: 'Compare versions' })
      .getByLabel('Older version')
      .selectOption('2');
    await page.getByRole('button', { name: 'Compare' }).click();
    await expect(page.getByRole('list', { name: 'Changes from version 2 to 4' })).toBeVisible();
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'kb-diff-dark');
    await main(page).getByRole('link', { name: 'Knowledge base', exact: true }).click();
    await expect(page.getByRole('rowheader', { name: 'Returns policy' })).toBeVisible();
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'kb-list-dark');
  });

  test('leaving unsaved changes asks first: links in the console, and closing the tab', async ({
    page,
    service,
    makeAxeBuilder,
  }) => {
    const article = await withKey(service, 'POST', '/api/v1/kb', {
      title: 'Unsaved',
      content: 'As saved.',
    });
    await signedIn(page, ADMIN.email, ADMIN.password, '/kb');
    await page.getByRole('link', { name: 'Unsaved', exact: true }).click();
    await expect(page).toHaveURL(new RegExp(`/kb/${article.id}$`));
    await page.getByLabel('Content (Markdown)').fill('Changed, not saved.');

    // A link in the console: "Stay" keeps the page and the text.
    await main(page).getByRole('link', { name: 'Agents', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Leave without saving?' });
    await expect(dialog).toBeVisible();
    await expectAccessible(makeAxeBuilder);
    await dialog.getByRole('button', { name: 'Stay' }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByLabel('Content (Markdown)')).toHaveValue('Changed, not saved.');
    await page.getByRole('link', { name: 'All articles' }).click();
    await expect(dialog).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
    await expect(page).toHaveURL(new RegExp(`/kb/${article.id}$`));

    await main(page).getByRole('link', { name: 'Agents', exact: true }).click();
    await dialog.getByRole('button', { name: 'Leave without saving' }).click();
    await expect(page.getByRole('heading', { name: 'Agents' })).toBeVisible();

    await page.goto(`/kb/${article.id}`);
    await page.getByLabel('Content (Markdown)').fill('Changed again.');
    const asked = new Promise<string>((done) =>
      page.once('dialog', (question) => {
        done(question.type());
        void question.dismiss();
      }),
    );
    await page.close({ runBeforeUnload: true });
    expect(await asked).toBe('beforeunload');
  });

  test('a save over someone else’s is refused in words, and the latest version can be loaded (P253)', async ({
    page,
    service,
  }) => {
    const article = await withKey(service, 'POST', '/api/v1/kb', {
      title: 'Opening hours',
      content: 'Open 9 to 5.',
    });
    await signedIn(page, ADMIN.email, ADMIN.password, `/kb/${article.id}`);
    await page.getByLabel('Content (Markdown)').fill('Open 9 to 6.');
    await withKey(service, 'PUT', `/api/v1/kb/${article.id}`, { content: 'Open 8 to 5.' });

    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const alert = page.getByRole('alert');
    await expect(alert).toContainText(
      'Someone else saved this article since you opened it (it is now at version 2), so your changes were not saved.',
    );
    await expect(alert).toContainText(/Reference: req_/);
    await expect(page.getByLabel('Content (Markdown)')).toHaveValue('Open 9 to 6.');
    await page
      .getByRole('button', { name: 'Load the latest version (drops your changes)' })
      .click();
    await expect(page.getByLabel('Content (Markdown)')).toHaveValue('Open 8 to 5.');
    await expect(page.getByRole('status')).toHaveText('Loaded version 2.');
    await expect(alert).toHaveCount(0);
  });

  test('refusals while saving and listing are said with the reference to quote', async ({
    page,
    service,
  }) => {
    const article = await withKey(service, 'POST', '/api/v1/kb', {
      title: 'Refused',
      content: 'x',
    });
    await signedIn(page, ADMIN.email, ADMIN.password, `/kb/${article.id}`);
    const refusals: Array<{
      status: number;
      headers: Record<string, string>;
      error: Record<string, unknown>;
      shown: string;
    }> = [
      {
        status: 403,
        headers: {},
        error: {
          code: 'forbidden',
          message: 'Insufficient role',
          details: { required_role: 'train', current_role: 'readonly' },
        },
        shown: 'Your role does not allow this (it needs train).',
      },
      {
        status: 429,
        headers: { 'Retry-After': '12' },
        error: {
          code: 'rate_limit_exceeded',
          message: 'Rate limit exceeded',
          details: { reason: 'scope_rate', retry_after: 12 },
        },
        shown: 'Too many requests: try again in 12 s.',
      },
    ];
    await page.getByLabel('Content (Markdown)').fill('y');
    for (const refusal of refusals) {
      await page.route(`**/api/v1/kb/${article.id}`, (route) =>
        route.request().method() === 'PUT'
          ? route.fulfill({
              status: refusal.status,
              headers: { ...refusal.headers, 'X-Request-Id': `req_${refusal.status}` },
              contentType: 'application/json',
              body: JSON.stringify({ error: refusal.error, request_id: `req_${refusal.status}` }),
            })
          : route.continue(),
      );
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      const alert = page.getByRole('alert');
      await expect(alert).toContainText(refusal.shown);
      await expect(alert).toContainText(`Reference: req_${refusal.status}`);
      await page.unrouteAll();
    }
    await expect(page.getByLabel('Content (Markdown)')).toHaveValue('y');

    await page.route('**/api/v1/kb?*', (route) =>
      route.fulfill({
        status: 429,
        headers: { 'Retry-After': '30', 'X-Request-Id': 'req_list' },
        contentType: 'application/json',
        body: JSON.stringify({
          error: {
            code: 'rate_limit_exceeded',
            message: 'Rate limit exceeded',
            details: { retry_after: 30 },
          },
          request_id: 'req_list',
        }),
      }),
    );
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(page.getByRole('status')).toHaveText('Saved as version 2.');
    await page.getByRole('link', { name: 'All articles' }).click();
    await expect(page.getByRole('alert')).toContainText('Too many requests: try again in 30 s.');
    await expect(page.getByRole('alert')).toContainText('Reference: req_list');
  });

  test('a readonly person reads articles and their history, with no control to change them', async ({
    page,
    service,
    makeAxeBuilder,
  }) => {
    const article = await withKey(service, 'POST', '/api/v1/kb', {
      title: 'Read me',
      content: '## Hello\n\nSee [the guide](https://docs.invalid/guide).',
      tags: ['guide'],
      status: 'published',
    });
    await withKey(service, 'PUT', `/api/v1/kb/${article.id}`, { content: '## Hello\n\nUpdated.' });
    const reader = await member(service, 'readonly');
    await signedIn(page, reader.email, reader.password, '/kb');

    await expect(
      main(page).getByRole('link', { name: 'Knowledge base', exact: true }),
    ).toBeVisible();
    await expect(page.getByRole('rowheader', { name: 'Read me' })).toBeVisible();
    await expect(page.getByRole('link', { name: 'New article' })).toHaveCount(0);
    await page.getByRole('link', { name: 'Read me' }).click();
    await expect(page.getByRole('heading', { name: 'Read me', level: 1 })).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Hello', level: 2 })).toBeVisible();
    await expect(page.getByRole('textbox')).toHaveCount(0);
    await expect(page.getByRole('button', { name: /Save|Publish|Unpublish/ })).toHaveCount(0);
    await expectAccessible(makeAxeBuilder);

    await page.getByRole('link', { name: 'Version history' }).click();
    await expect(page.getByRole('list', { name: 'Changes from version 1 to 2' })).toBeVisible();
    await expect(page.getByRole('button', { name: /Restore/ })).toHaveCount(0);
    await expect(page.getByRole('columnheader', { name: 'Actions' })).toHaveCount(0);

    await page.goto('/kb/new');
    await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
  });

  test('at 390 px the editor and a comparison fit the screen', async ({
    page,
    service,
    makeAxeBuilder,
  }) => {
    const article = await withKey(service, 'POST', '/api/v1/kb', {
      title: 'A phone-sized article with a long title that has to wrap',
      content: `# Heading\n\n${'A long line of text without much of a break in it. '.repeat(6)}`,
      tags: ['phone'],
    });
    await withKey(service, 'PUT', `/api/v1/kb/${article.id}`, {
      content:
        '# Heading\n\nShort now.\n\n```\ncode that is far too long to fit on a phone screen at all, at all\n```',
    });
    await page.setViewportSize({ width: 390, height: 844 });
    const fits = async () => {
      const widths = await page.evaluate(() => ({
        scroll: document.documentElement.scrollWidth,
        client: document.documentElement.clientWidth,
      }));
      expect(widths.scroll).toBeLessThanOrEqual(widths.client);
    };
    await signedIn(page, ADMIN.email, ADMIN.password, '/kb');
    await expect(page.getByRole('rowheader', { name: /A phone-sized article/ })).toBeVisible();
    await fits();
    await page.getByRole('link', { name: /A phone-sized article/ }).click();
    await expect(page.getByRole('region', { name: 'Preview' })).toBeVisible();
    await fits();
    await expectAccessible(makeAxeBuilder);
    await page.getByRole('link', { name: 'Version history' }).click();
    await expect(page.getByRole('list', { name: 'Changes from version 1 to 2' })).toBeVisible();
    await fits();
    await expectAccessible(makeAxeBuilder);
  });
});
