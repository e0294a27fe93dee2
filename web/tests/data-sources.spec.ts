import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import {
  PROVIDERS,
  type ProviderStandIns,
  startProviderStandIns,
} from '../../test/support/provider-stand-ins';
import {
  ADMIN,
  test as base,
  documentScreenshot,
  expect,
  expectAccessible,
  signedIn,
} from './support/fixtures';
import { ApiSession, invitedUser } from './support/http';

/**
 * A small website on loopback whose pages after the first few wait until
 * the test lets them through, so a sync can be watched while it runs.
 */
interface GatedSite {
  readonly url: string;
  /** Lets the waiting pages answer, one (`count` 1) or all. */
  release(count?: number): void;
  close(): Promise<void>;
}

const GATED = ['/p3', '/p4', '/p5', '/p6'];

async function startGatedSite(): Promise<GatedSite> {
  const waiting: Array<() => void> = [];
  let open = 0;
  const page = (title: string, links: string[] = []) =>
    `<!doctype html><html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${title} explains how the orchard's ${title.toLowerCase()} trees are pruned in late winter, watered in dry summers and picked in autumn.</p>${links.map((link) => `<a href="${link}">${link}</a>`).join(' ')}</main></body></html>`;
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    const answer = () => {
      if (path === '/') {
        response.writeHead(200, { 'Content-Type': 'text/html' });
        response.end(page('Orchard', ['/missing', '/export', '/p1', '/p2', ...GATED]));
      } else if (/^\/p\d$/.test(path)) {
        response.writeHead(200, { 'Content-Type': 'text/html' });
        response.end(page(`Apple ${path.slice(2)}`));
      } else if (path === '/export') {
        response.writeHead(200, { 'Content-Type': 'image/png' });
        response.end(Buffer.from('not a page'));
      } else {
        response.writeHead(404, { 'Content-Type': 'text/plain' });
        response.end('not found');
      }
    };
    if (GATED.includes(path) && open <= 0) waiting.push(answer);
    else {
      if (GATED.includes(path)) open -= 1;
      answer();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    release(count = Number.POSITIVE_INFINITY) {
      open += count;
      while (open > 0 && waiting.length > 0) {
        open -= 1;
        waiting.shift()?.();
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// biome-ignore lint/complexity/noBannedTypes: no test-scoped fixtures of its own
const test = base.extend<{}, { standIns: ProviderStandIns; site: GatedSite }>({
  standIns: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright's fixture signature
    async ({}, use) => {
      const standIns = await startProviderStandIns();
      await use(standIns);
      await standIns.close();
    },
    { scope: 'worker' },
  ],
  site: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright's fixture signature
    async ({}, use) => {
      const site = await startGatedSite();
      await use(site);
      site.release();
      await site.close();
    },
    { scope: 'worker' },
  ],
  // The runtime reads the connectors at the stand-ins (and may reach loopback sites, D35).
  serviceEnv: [async ({ standIns }, use) => use(standIns.env), { scope: 'worker' }],
});

/** The form's label for each D26 config field the stand-ins' configs use. */
const CONFIG_LABELS: Record<string, string> = {
  base_url: 'Site address',
  space_keys: 'Space keys',
  channel_ids: 'Channel ids',
  folder_ids: 'Folder ids',
  shared_drive_ids: 'Shared drive ids',
  site_url: 'Site address',
  drive_ids: 'Library ids',
};
const TYPE_LABELS = {
  confluence: 'Confluence',
  slack: 'Slack',
  google_drive: 'Google Drive',
  sharepoint: 'SharePoint',
} as const;

async function openDataSources(page: Page) {
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'Data sources' })
    .click();
  await expect(page.getByRole('heading', { name: 'Data sources', level: 1 })).toBeVisible();
}

test.describe('Data sources', () => {
  test('a website source: made with its settings, synced with live progress and skipped pages, listed; a failed sync says why', async ({
    page,
    site,
    service,
    makeAxeBuilder,
  }) => {
    await signedIn(page, ADMIN.email, ADMIN.password, '/data-sources');
    await page.getByRole('link', { name: 'New data source' }).click();
    await page.getByLabel('Type').selectOption({ label: 'Website' });
    await page.getByLabel('Name').fill('Orchard site');
    await page.getByLabel('Start address').fill(`${site.url}/`);
    await page.getByLabel('Most pages').fill('10');
    // This one is synced by hand, to watch "Sync now" (data-source-documents.spec.ts: syncing on creation).
    await page.getByLabel('Start syncing as soon as it is made').uncheck();
    await expectAccessible(makeAxeBuilder);
    await page.getByRole('button', { name: 'Create data source' }).click();

    await expect(page.getByRole('heading', { name: 'Orchard site', level: 1 })).toBeVisible();
    await expect(page.getByText('This data source has not been synced yet.')).toBeVisible();
    await page.getByRole('button', { name: 'Sync now' }).click();

    // Live: the page is never reloaded; the status moves as the service reads the site.
    await expect(page.getByRole('heading', { name: 'Sync in progress' })).toBeVisible();
    const progress = page.getByRole('progressbar', { name: 'Progress' });
    await expect(progress).toBeVisible();
    // The crawl has begun (the first progress is written) and waits on the gated pages; one answers over a
    // second later, so the service writes its progress again (D24: at most every second), skipped pages too.
    await expect(page.getByText('Syncing:')).toBeVisible({ timeout: 15_000 });
    await expect(page.getByText(/of 10 documents/)).toBeVisible();
    await page.waitForTimeout(1_100);
    site.release(1);
    const skipped = page.getByRole('list', { name: 'Skipped documents' });
    await expect(skipped).toContainText(`${site.url}/export`);
    await expect(skipped.getByRole('listitem')).toHaveCount(2);
    await expect(page.getByText(/[1-9]\d* of 10 documents/)).toBeVisible();
    await expect(page.getByRole('button', { name: 'Sync now' })).toBeDisabled();
    await documentScreenshot(page, 'data-source-sync-light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'data-source-sync-dark');
    await page.emulateMedia({ colorScheme: 'light' });

    site.release();
    await expect(page.getByText('The last sync finished.')).toBeVisible({ timeout: 20_000 });
    await expect(page.getByRole('heading', { name: 'Sync', exact: true })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Sync now' })).toBeEnabled();

    // A site where nothing can be read: the sync fails, and the page says why.
    const admin = await ApiSession.signIn(service.url, ADMIN.email, ADMIN.password);
    const broken = await admin.call<{ id: string }>('POST', '/api/v1/data-sources', {
      type: 'website',
      name: 'Gone site',
      config: { url: `${site.url}/missing`, max_pages: 5 },
    });
    await openDataSources(page);
    await page.getByRole('link', { name: 'Gone site' }).click();
    await page.getByRole('button', { name: 'Sync now' }).click();
    await expect(page.getByRole('alert')).toContainText(
      'The sync failed: Nothing usable was found',
      { timeout: 20_000 },
    );
    await expect(page.getByRole('list', { name: 'Skipped documents' })).toContainText(
      `${site.url}/missing`,
    );
    expect(page.url()).toContain(`/data-sources/${broken.id}`);

    // The list: status, chunks and last sync of each.
    await openDataSources(page);
    const orchard = page.getByRole('row', { name: /Orchard site/ });
    await expect(orchard).toContainText('Website');
    await expect(orchard).toContainText('Ready');
    await expect(page.getByRole('row', { name: /Gone site/ })).toContainText('Failed');
    await expect(page.getByRole('row', { name: /Gone site/ })).toContainText('(failed)');
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'data-sources-light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'data-sources-dark');
    await page.setViewportSize({ width: 390, height: 844 });
    await expectAccessible(makeAxeBuilder);
    const widths = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      client: document.documentElement.clientWidth,
    }));
    expect(widths.scroll).toBeLessThanOrEqual(widths.client);
  });

  test("a source's settings edited: name, start address, most pages and sync; a refused address named (P300)", async ({
    page,
    service,
    makeAxeBuilder,
  }) => {
    const admin = await ApiSession.signIn(service.url, ADMIN.email, ADMIN.password);
    const source = await admin.call<{ id: string }>('POST', '/api/v1/data-sources', {
      type: 'website',
      name: 'Handbook',
      config: { url: 'https://handbook.example.test/', max_pages: 20 },
    });
    await signedIn(page, ADMIN.email, ADMIN.password, `/data-sources/${source.id}`);
    await page.getByRole('link', { name: 'Edit settings' }).click();

    await expect(page.getByRole('heading', { name: 'Edit Handbook', level: 1 })).toBeVisible();
    await expect(page.getByLabel('Start address')).toHaveValue('https://handbook.example.test/');
    await expect(page.getByLabel('Most pages')).toHaveValue('20');
    await expect(page.getByLabel('Type')).toHaveCount(0);
    await expectAccessible(makeAxeBuilder);

    // The service refuses a scheme it does not crawl; the form names the field in its own words.
    await page.getByLabel('Start address').fill('ftp://handbook.example.test/');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect(page.getByRole('list', { name: 'What to correct' })).toContainText(
      'Start address:',
    );

    await page.getByLabel('Name').fill('Staff handbook');
    await page.getByLabel('Start address').fill('https://handbook.example.test/start');
    await page.getByLabel('Most pages').fill('50');
    await page.getByLabel('Sync').selectOption({ label: 'Every day' });
    await page.getByRole('button', { name: 'Save changes' }).click();

    await expect(page.getByRole('heading', { name: 'Staff handbook', level: 1 })).toBeVisible();
    const about = page.getByRole('region', { name: 'About' });
    await expect(about).toContainText('https://handbook.example.test/start');
    await expect(about).toContainText('50');
    await expect(about).toContainText('Every day');
    expect(
      await admin.call<{ config: unknown }>('GET', `/api/v1/data-sources/${source.id}`),
    ).toMatchObject({
      name: 'Staff handbook',
      sync_frequency: 'daily',
      config: { url: 'https://handbook.example.test/start', max_pages: 50 },
    });
  });

  test('a file source: many files dropped at once, each with its progress and final status; files listed and deleted', async ({
    page,
    service,
    makeAxeBuilder,
  }) => {
    const admin = await ApiSession.signIn(service.url, ADMIN.email, ADMIN.password);
    const source = await admin.call<{ id: string }>('POST', '/api/v1/data-sources', {
      type: 'file',
      name: 'Handbooks',
    });
    await signedIn(page, ADMIN.email, ADMIN.password, `/data-sources/${source.id}`);
    await expect(page.getByText('No files yet.')).toBeVisible();

    // Dropped together: two good files, one the service refuses by its type before any byte is sent,
    // and one whose bytes are not what its name says, refused once uploaded.
    const dropZone = page.getByRole('group', { name: 'Add files' });
    const dataTransfer = await page.evaluateHandle(() => {
      const transfer = new DataTransfer();
      const add = (name: string, text: string, type: string) =>
        transfer.items.add(new File([text], name, { type }));
      add('pruning.md', '# Pruning\n\nApple trees are pruned in late winter.\n', 'text/markdown');
      add('picking.txt', 'Apples are picked in autumn, when the seeds are brown.\n', 'text/plain');
      add('setup.exe', 'MZ not a document', 'application/octet-stream');
      add('scan.pdf', 'this is not a PDF at all', 'application/pdf');
      return transfer;
    });
    await dropZone.dispatchEvent('drop', { dataTransfer });

    const uploads = page.getByRole('list', { name: 'Uploads' });
    const row = (name: string) => uploads.getByRole('listitem').filter({ hasText: name });
    await expect(row('setup.exe')).toContainText('Refused:');
    await expect(row('setup.exe')).toContainText(/not an accepted type|PDF, DOCX/);
    await expect(row('pruning.md')).toContainText(/Indexed, \d+ chunks?/, { timeout: 20_000 });
    await expect(row('picking.txt')).toContainText(/Indexed, \d+ chunks?/, { timeout: 20_000 });
    await expect(row('scan.pdf')).toContainText('Failed:', { timeout: 20_000 });
    await expect(page.getByRole('progressbar', { name: 'pruning.md upload' })).toHaveAttribute(
      'value',
      '100',
    );
    await expect(page.getByRole('status').filter({ hasText: 'files indexed' })).toHaveText(
      '2 of 4 files indexed, 1 failed, 1 refused',
    );
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'data-source-files-light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'data-source-files-dark');

    // A file over 50 MiB is refused before it is sent (D17), through the file input.
    const folder = mkdtempSync(join(tmpdir(), 'console-files-'));
    try {
      const large = join(folder, 'atlas.pdf');
      writeFileSync(large, '');
      truncateSync(large, 50 * 1024 * 1024 + 1);
      await page.getByLabel('Choose files').setInputFiles(large);
      await expect(row('atlas.pdf')).toContainText('Refused: Files are at most 50 MiB');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }

    // The files as the service lists them, and one deleted.
    const files = page.getByRole('table').filter({ hasText: 'pruning.md' });
    await expect(files.getByRole('row', { name: /scan\.pdf/ })).toContainText('Failed');
    await files.getByRole('checkbox', { name: 'Select picking.txt' }).check();
    await page.getByRole('button', { name: 'Delete 1 selected' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete file' }).click();
    await expect(files.getByRole('rowheader', { name: 'picking.txt' })).toHaveCount(0);
    await expect(files.getByRole('rowheader', { name: 'pruning.md' })).toBeVisible();
  });

  test('connectors: made for each provider, connected through its sign-in and back, synced and disconnected', async ({
    page,
    service,
    standIns,
    makeAxeBuilder,
  }) => {
    // An administrator of its own: eight connector writes and more would otherwise share
    // ADMIN's per-user Write bucket (D16, P63: 15, then 10 a minute) with the earlier tests'.
    const admin = await ApiSession.signIn(service.url, ADMIN.email, ADMIN.password);
    const connector = await invitedUser(admin, service.url, 'admin', 'Connector admin');
    await signedIn(page, connector.email, connector.password, '/data-sources/new');
    for (const provider of PROVIDERS) {
      await page.goto('/data-sources/new');
      await page.getByLabel('Type').selectOption({ label: TYPE_LABELS[provider] });
      await page.getByLabel('Name').fill(`${TYPE_LABELS[provider]} stand-in`);
      for (const [field, value] of Object.entries(standIns.configs[provider])) {
        const label = CONFIG_LABELS[field] ?? field;
        await page
          .getByLabel(label, { exact: true })
          .fill(Array.isArray(value) ? value.join(', ') : String(value));
      }
      await page.getByRole('button', { name: 'Create data source' }).click();
      await expect(
        page.getByRole('heading', { name: `${TYPE_LABELS[provider]} stand-in`, level: 1 }),
      ).toBeVisible();
      await expect(page.getByText(`${TYPE_LABELS[provider]} account: Disconnected`)).toBeVisible();

      // Connect: the provider's sign-in (the stand-in consents at once), its callback, back here.
      await page.getByRole('button', { name: 'Connect', exact: true }).click();
      await expect(page.getByRole('status').filter({ hasText: 'is connected to' })).toContainText(
        `${TYPE_LABELS[provider]} stand-in is connected to ${TYPE_LABELS[provider]}.`,
      );
      await expect(page).not.toHaveURL(/connected=1/);
      await expect(page.getByText(`${TYPE_LABELS[provider]} account: Connected`)).toBeVisible();
    }
    await expectAccessible(makeAxeBuilder);

    // The last one (SharePoint) syncs what it now reaches, then lets go of it.
    await page.getByRole('button', { name: 'Sync now' }).click();
    await expect(page.getByText('The last sync finished.')).toBeVisible({ timeout: 20_000 });
    await page.getByRole('button', { name: 'Disconnect' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Disconnected' })).toBeVisible();
    await expect(page.getByText('SharePoint account: Disconnected')).toBeVisible();
    await expect(page.getByRole('button', { name: 'Disconnect' })).toHaveCount(0);
  });

  test('failures in words: a readonly person sees no controls; 429, 403 and a dropped connection', async ({
    page,
    service,
  }) => {
    const admin = await ApiSession.signIn(service.url, ADMIN.email, ADMIN.password);
    await admin.call<{ id: string }>('POST', '/api/v1/data-sources', {
      type: 'file',
      name: 'Policies',
    });
    const email = `reader-${Date.now()}@console.test`;
    const invited = await admin.invite(email, 'Reader', 'readonly');
    await fetch(`${service.url}/api/v1/auth/invitations/accept`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ token: invited.token, password: 'a readonly password' }),
    });
    await signedIn(page, email, 'a readonly password', '/data-sources');
    await expect(page.getByRole('link', { name: 'Policies' })).toBeVisible();
    await expect(page.getByRole('link', { name: 'New data source' })).toHaveCount(0);
    await page.getByRole('link', { name: 'Policies' }).click();
    await expect(page.getByRole('heading', { name: 'Files' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Sync now' })).toHaveCount(0);
    await expect(page.getByRole('group', { name: 'Add files' })).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Delete data source' })).toHaveCount(0);
    await page.getByRole('button', { name: 'Reader' }).click();
    await page.getByRole('button', { name: 'Sign out' }).click();

    // A file source has no sync: the sync's failures are shown on a website's page.
    const website = await admin.call<{ id: string }>('POST', '/api/v1/data-sources', {
      type: 'website',
      name: 'Policies site',
      config: { url: 'https://policies.example.test/', max_pages: 5 },
    });
    await signedIn(page, ADMIN.email, ADMIN.password, `/data-sources/${website.id}`);
    // 403: the role changed since the page was shown.
    await page.route('**/api/v1/data-sources/*/sync', (route) =>
      route.fulfill({
        status: 403,
        contentType: 'application/json',
        headers: { 'X-Request-Id': 'req_403' },
        body: JSON.stringify({
          error: {
            code: 'forbidden',
            message: 'This endpoint needs the configure role; you are readonly',
            details: { required_role: 'configure', current_role: 'readonly' },
          },
          request_id: 'req_403',
        }),
      }),
    );
    await page.getByRole('button', { name: 'Sync now' }).click();
    const refusal = page.getByRole('alert').filter({ hasText: 'Your role does not allow this' });
    await expect(refusal).toContainText('(it needs configure)');
    await expect(refusal).toContainText('Reference: req_403');

    // A dropped connection while the sync's status is read: said, then read again (P250).
    await page.unrouteAll();
    let dropped = 0;
    await page.route('**/api/v1/data-sources/*/status', (route) => {
      dropped += 1;
      return dropped === 1 ? route.abort('connectionreset') : route.fallback();
    });
    await page.goto(`/data-sources/${website.id}`);
    const unreachable = page.getByRole('alert').filter({ hasText: 'cannot be reached' });
    await expect(unreachable).toBeVisible();
    await expect(unreachable).toHaveCount(0, { timeout: 10_000 });
    await expect(page.getByText('This data source has not been synced yet.')).toBeVisible();
    expect(dropped).toBe(2);

    // 429 on the list: how long to wait, and the reference.
    await page.unrouteAll();
    await page.route('**/api/v1/data-sources?*', (route) =>
      route.fulfill({
        status: 429,
        contentType: 'application/json',
        headers: { 'Retry-After': '30', 'X-Request-Id': 'req_429' },
        body: JSON.stringify({
          error: {
            code: 'rate_limit_exceeded',
            message: 'Rate limit exceeded',
            details: { retry_after: 30 },
          },
          request_id: 'req_429',
        }),
      }),
    );
    await openDataSources(page);
    await expect(page.getByRole('alert')).toContainText('Too many requests: try again in 30 s.');
    await expect(page.getByRole('alert')).toContainText('Reference: req_429');
  });
});
