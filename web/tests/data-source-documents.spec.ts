import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from '@playwright/test';
import {
  ADMIN,
  test as base,
  documentScreenshot,
  expect,
  expectAccessible,
  signedIn,
} from './support/fixtures';
import { ApiSession } from './support/http';

/** A small website on loopback whose `/held` page answers only once the test lets it. */
interface HeldSite {
  readonly url: string;
  release(): void;
  close(): Promise<void>;
}

async function startHeldSite(): Promise<HeldSite> {
  const waiting: Array<() => void> = [];
  let released = false;
  const page = (title: string, text: string, links: string[] = []) =>
    `<!doctype html><html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${text}</p>${links.map((link) => `<a href="${link}">${link}</a>`).join(' ')}</main></body></html>`;
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    const answer =
      (title: string, text: string, links: string[] = []) =>
      () => {
        response.writeHead(200, { 'Content-Type': 'text/html' });
        response.end(page(title, text, links));
      };
    if (path === '/') {
      answer('Cider house', 'The cider house presses apples every October.', [
        '/pressing',
        '/held',
      ])();
    } else if (path === '/pressing') {
      answer('Pressing', 'Apples are milled, then pressed through cloths into the vat.')();
    } else if (path === '/held') {
      const reply = answer('Bottling', 'Cider is bottled after three months in the barrel.');
      if (released) reply();
      else waiting.push(reply);
    } else {
      response.writeHead(404, { 'Content-Type': 'text/plain' });
      response.end('not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    release() {
      released = true;
      for (const reply of waiting.splice(0)) reply();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// biome-ignore lint/complexity/noBannedTypes: no test-scoped fixtures of its own
const test = base.extend<{}, { site: HeldSite }>({
  site: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright's fixture signature
    async ({}, use) => {
      const site = await startHeldSite();
      await use(site);
      site.release();
      await site.close();
    },
    { scope: 'worker' },
  ],
  // The crawler may reach the loopback site (only local runs and tests may).
  serviceEnv: [{ SVC_ALLOW_PRIVATE_URLS: 'true' }, { scope: 'worker' }],
});

/** Drops files on the drop zone as a browser does: `[name, text, type]` each. */
async function dropFiles(page: Page, files: ReadonlyArray<readonly [string, string, string]>) {
  const dataTransfer = await page.evaluateHandle(
    (entries) => {
      const transfer = new DataTransfer();
      for (const [name, text, type] of entries)
        transfer.items.add(new File([text], name, { type }));
      return transfer;
    },
    files as Array<[string, string, string]>,
  );
  await page.getByRole('group', { name: 'Add files' }).dispatchEvent('drop', { dataTransfer });
}

async function expectFitsWidth(page: Page) {
  const widths = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    client: document.documentElement.clientWidth,
  }));
  expect(widths.scroll).toBeLessThanOrEqual(widths.client);
}

test.describe("A data source's documents", () => {
  test('a file source: files first, searched and sorted, previewed, one replaced after asking, several deleted at once, one indexed again', async ({
    page,
    service,
    makeAxeBuilder,
  }) => {
    const admin = await ApiSession.signIn(service.url, ADMIN.email, ADMIN.password);
    const source = await admin.call<{ id: string }>('POST', '/api/v1/data-sources', {
      type: 'file',
      name: 'Orchard files',
    });
    await signedIn(page, ADMIN.email, ADMIN.password, `/data-sources/${source.id}`);

    // The drop zone is the first thing under the heading; nothing speaks of syncing.
    const dropZone = page.getByRole('group', { name: 'Add files' });
    const about = page.getByRole('heading', { name: 'About' });
    await expect(dropZone).toBeVisible();
    const [dropTop, aboutTop] = await Promise.all([
      dropZone.evaluate((element) => element.getBoundingClientRect().top),
      about.evaluate((element) => element.getBoundingClientRect().top),
    ]);
    expect(dropTop).toBeLessThan(aboutTop);
    await expect(page.getByRole('button', { name: 'Sync now' })).toHaveCount(0);
    await expect(page.getByText('Last sync')).toHaveCount(0);
    await expect(page.getByText('Never')).toHaveCount(0);
    await expect(page.getByText('No files yet.')).toBeVisible();

    await dropFiles(page, [
      ['pruning.md', '# Pruning\n\nApple trees are pruned in late winter.\n', 'text/markdown'],
      ['picking.txt', 'Apples are picked in autumn, when the seeds are brown.\n', 'text/plain'],
      [
        'storing.md',
        `# Storing\n\n${'Apples keep for months in a cool, dark and airy cellar. '.repeat(12)}\n`,
        'text/markdown',
      ],
    ]);
    const uploads = page.getByRole('list', { name: 'Uploads' });
    const upload = (name: string) => uploads.getByRole('listitem').filter({ hasText: name });
    for (const name of ['pruning.md', 'picking.txt', 'storing.md']) {
      await expect(upload(name)).toContainText(/Indexed, \d+ chunks?/, { timeout: 20_000 });
    }
    const table = page.getByRole('region', { name: 'Files' }).getByRole('table');
    const row = (name: string) => table.getByRole('row').filter({ hasText: name });
    // The upload list and the table agree.
    await expect(row('pruning.md')).toContainText('Indexed');
    await expect(row('storing.md')).toContainText('Indexed');
    await expect(page.getByRole('region', { name: 'About' })).toContainText('Ready');

    // Searched by name, sorted by size.
    await page.getByLabel('Search files').fill('pick');
    await expect(table.getByRole('rowheader')).toHaveText(['picking.txt']);
    await expect(table.getByRole('caption')).toHaveText('1 file found');
    await page.getByLabel('Search files').fill('');
    await page.getByLabel('Sort by').selectOption({ label: 'Largest' });
    await expect(table.getByRole('rowheader')).toHaveText([
      'storing.md',
      'picking.txt',
      'pruning.md',
    ]);
    await page.getByLabel('Sort by').selectOption({ label: 'Name' });
    await expect(table.getByRole('rowheader')).toHaveText([
      'picking.txt',
      'pruning.md',
      'storing.md',
    ]);
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'data-source-documents-light');

    // A file's chunks, as retrieval reads them.
    await page.getByRole('button', { name: 'Show the chunks of pruning.md' }).click();
    const preview = page.getByRole('dialog', { name: 'Chunks of pruning.md' });
    await expect(preview.getByRole('list', { name: 'Chunks' })).toContainText('late winter');
    await expectAccessible(makeAxeBuilder);
    await preview.getByRole('button', { name: 'Close' }).click();
    await expect(preview).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Show the chunks of pruning.md' })).toBeFocused();

    // The same name again: asked first, then the file is replaced, not added.
    await dropFiles(page, [
      ['picking.txt', 'Pears are picked before they ripen, then kept cool.\n', 'text/plain'],
    ]);
    const asking = page.getByRole('dialog', { name: 'Replace picking.txt?' });
    await expect(asking).toContainText('already in Orchard files');
    await asking.getByRole('button', { name: 'Replace' }).click();
    await expect(upload('picking.txt').first()).toContainText(/Indexed, \d+ chunks?/, {
      timeout: 20_000,
    });
    await expect(table.getByRole('rowheader', { name: 'picking.txt' })).toHaveCount(1);
    await page.getByRole('button', { name: 'Show the chunks of picking.txt' }).click();
    await expect(page.getByRole('dialog', { name: 'Chunks of picking.txt' })).toContainText(
      'Pears are picked',
    );
    await page.getByRole('button', { name: 'Close' }).click();

    // Indexed again on request: Indexing, then Indexed.
    await page.getByRole('button', { name: 'Index picking.txt again' }).click();
    await expect(row('picking.txt')).toContainText('Indexed', { timeout: 20_000 });

    // Two deleted together, after one question.
    await table.getByRole('checkbox', { name: 'Select pruning.md' }).check();
    await table.getByRole('checkbox', { name: 'Select storing.md' }).check();
    await page.getByRole('button', { name: 'Delete 2 selected' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete 2 files?' });
    await expect(confirm).toContainText('pruning.md and storing.md');
    await confirm.getByRole('button', { name: 'Delete files' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'files deleted' })).toHaveText(
      '2 files deleted.',
    );
    await expect(table.getByRole('rowheader')).toHaveText(['picking.txt']);

    await page.emulateMedia({ colorScheme: 'dark' });
    await expectAccessible(makeAxeBuilder);
    await documentScreenshot(page, 'data-source-documents-dark');
    await page.setViewportSize({ width: 390, height: 844 });
    await expectAccessible(makeAxeBuilder);
    await expectFitsWidth(page);
  });

  test('a new website source starts syncing when made, says "Syncing" meanwhile, then lists its pages', async ({
    page,
    site,
    makeAxeBuilder,
  }) => {
    await signedIn(page, ADMIN.email, ADMIN.password, '/data-sources/new');
    await page.getByLabel('Type').selectOption({ label: 'Website' });
    await page.getByLabel('Name').fill('Cider site');
    await page.getByLabel('Start address').fill(`${site.url}/`);
    await expect(page.getByLabel('Start syncing as soon as it is made')).toBeChecked();
    await page.getByRole('button', { name: 'Create data source' }).click();

    // The sync was asked for with the source: it is under way, never "not synced yet".
    await expect(page.getByRole('heading', { name: 'Cider site', level: 1 })).toBeVisible();
    const about = page.getByRole('region', { name: 'About' });
    await expect(about).toContainText('Syncing');
    await expect(page.getByText('Not synced yet')).toHaveCount(0);
    await expect(page.getByText('This data source has not been synced yet.')).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Sync now' })).toBeDisabled();

    site.release();
    await expect(page.getByText('The last sync finished.')).toBeVisible({ timeout: 20_000 });
    await expect(about).toContainText('Ready');

    // Its crawled pages, with their addresses; searched; one previewed.
    const pages = page.getByRole('region', { name: 'Documents' }).getByRole('table');
    await expect(pages.getByRole('rowheader')).toHaveCount(3);
    await page.getByLabel('Search pages').fill('/pressing');
    await expect(pages.getByRole('rowheader')).toHaveCount(1);
    await expect(pages.getByRole('rowheader')).toContainText('Pressing');
    await page.getByRole('button', { name: 'Show the chunks of Pressing' }).click();
    await expect(page.getByRole('dialog', { name: 'Chunks of Pressing' })).toContainText(
      'pressed through cloths',
    );
    await expectAccessible(makeAxeBuilder);
    await page.getByRole('button', { name: 'Close' }).click();
    // A website's pages come from its sync: nothing to select or delete one by one.
    await expect(page.getByRole('checkbox')).toHaveCount(0);

    await page.emulateMedia({ colorScheme: 'dark' });
    await expectAccessible(makeAxeBuilder);
    await page.setViewportSize({ width: 390, height: 844 });
    await expectAccessible(makeAxeBuilder);
    await expectFitsWidth(page);
  });
});
