import { ADMIN, expect, signedIn, test } from './support/fixtures';

/**
 * What the console sends over the wire on one machine (issue 31 item 7):
 * scripts and stylesheets compressed, only the shell's stylesheet before
 * the first render and each screen's with the screen, a robots file at
 * /robots.txt, and JSON 404s for /api paths that are no endpoint. The
 * fixture fails any test with an uncaught error or a CSP refusal.
 */
test.describe('On the wire', () => {
  test("the console's scripts and stylesheets arrive compressed", async ({ page }) => {
    const seen: { url: string; type: string; encoding: string | undefined }[] = [];
    page.on('response', (response) => {
      const type = response.request().resourceType();
      if (type !== 'script' && type !== 'stylesheet') return;
      seen.push({ url: response.url(), type, encoding: response.headers()['content-encoding'] });
    });

    await signedIn(page, ADMIN.email, ADMIN.password, '/agents');
    await expect(page.getByRole('heading', { name: 'Agents', level: 1 })).toBeVisible();

    expect(seen.some(({ type }) => type === 'script')).toBe(true);
    expect(seen.some(({ type }) => type === 'stylesheet')).toBe(true);
    // Chromium takes Brotli, so every file big enough to gain goes as Brotli; the smallest go as they are.
    const sizes = await Promise.all(
      seen.map(async (file) => ({
        ...file,
        bytes: (
          await (
            await page.request.get(file.url, { headers: { 'Accept-Encoding': 'identity' } })
          ).body()
        ).length,
      })),
    );
    for (const file of sizes) {
      expect(file.encoding, `${file.url} (${file.bytes} bytes)`).toBe(
        file.bytes >= 1024 ? 'br' : undefined,
      );
    }
  });

  test("the page starts with only the shell's stylesheet; a screen's comes with the screen", async ({
    page,
  }) => {
    const html = await (await page.request.get('/sign-in')).text();
    expect(html.match(/rel="stylesheet"/g)).toHaveLength(1);

    await signedIn(page, ADMIN.email, ADMIN.password, '/agents');
    await expect(page.getByRole('heading', { name: 'Agents', level: 1 })).toBeVisible();
    const linked = () =>
      page.evaluate(() =>
        [...document.querySelectorAll<HTMLLinkElement>('link[rel="stylesheet"]')].map(
          (link) => new URL(link.href).pathname,
        ),
      );
    expect(await linked()).toEqual(
      expect.arrayContaining([expect.stringMatching(/^\/assets\/agents-\w+\.css$/)]),
    );
    expect((await linked()).some((href) => href.startsWith('/assets/analytics-'))).toBe(false);

    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Analytics' })
      .click();
    await expect(page.getByRole('heading', { name: 'Analytics', level: 1 })).toBeVisible();
    expect((await linked()).some((href) => /^\/assets\/analytics-\w+\.css$/.test(href))).toBe(true);
  });

  test('/robots.txt answers a robots file, not the application', async ({ page }) => {
    const response = await page.goto('/robots.txt');

    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-type']).toBe('text/plain; charset=utf-8');
    await expect(page.locator('body')).toContainText('User-agent: *');
    await expect(page.locator('#app')).toHaveCount(0);
  });

  test('an /api path that is no endpoint answers a JSON 404 in the error shape', async ({
    page,
  }) => {
    await page.goto('/sign-in');
    const answers = await page.evaluate(async () =>
      Promise.all(
        ['/api/v1/no-such-thing', '/api/no-such-thing'].map(async (path) => {
          const response = await fetch(path);
          return {
            path,
            status: response.status,
            type: response.headers.get('content-type'),
            body: await response.json(),
          };
        }),
      ),
    );

    for (const answer of answers) {
      expect(answer.status, answer.path).toBe(404);
      expect(answer.type).toBe('application/json; charset=utf-8');
      expect(JSON.stringify(answer.body)).toContain('not_found');
      expect(answer.body.request_id).toMatch(/^req_/);
    }
    expect(answers[0]?.body.error.code).toBe('not_found');
  });
});
