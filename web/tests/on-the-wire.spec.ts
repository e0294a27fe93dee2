import { ADMIN, expect, signedIn, test } from './support/fixtures';
import { createAgentWithKey } from './support/http';

/**
 * What the console sends over the wire on one machine (issue 31 item 7):
 * scripts and stylesheets compressed, only the shell's stylesheet before
 * the first render and each screen's with the screen, a robots file at
 * /robots.txt, JSON 404s for /api paths that are no endpoint, and no
 * layout shift while a screen's list arrives. The
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

  test('the sign-in page opens with nothing in the browser console, not even a 401', async ({
    page,
  }) => {
    const logged: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') logged.push(message.text());
    });
    const asked: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/api/v1/auth/me')) asked.push(request.url());
    });

    await page.goto('/sign-in');
    await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
    await page.waitForLoadState('networkidle');

    expect(logged).toEqual([]);
    expect(asked).toEqual([]);
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

  test('nothing moves while the lists arrive, on a phone or a wide screen', async ({
    page,
    service,
  }) => {
    test.setTimeout(90_000);
    for (let index = 1; index <= 12; index += 1) {
      await createAgentWithKey(service.url, service.adminKey, `Layout agent ${index}`);
    }
    await signedIn(page, ADMIN.email, ADMIN.password, '/agents');
    // Every layout shift the page records from its first paint, as Lighthouse adds them up.
    await page.addInitScript(() => {
      const shifts: number[] = [];
      Object.assign(window, { layoutShifts: shifts });
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries() as (PerformanceEntry & { value: number })[]) {
          shifts.push(entry.value);
        }
      }).observe({ type: 'layout-shift', buffered: true });
    });
    const shifted: string[] = [];
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 844 });
      for (const path of ['/agents', '/data-sources', '/kb', '/interactions', '/settings/users']) {
        await page.goto(path);
        await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
        await expect(page.getByRole('status').filter({ hasText: /^Loading/ })).toHaveCount(0);
        await page.waitForTimeout(300);
        const total = await page.evaluate(() =>
          (window as unknown as { layoutShifts: number[] }).layoutShifts.reduce(
            (sum, value) => sum + value,
            0,
          ),
        );
        if (total > 0.02) shifted.push(`${path} at ${width} px: ${total.toFixed(3)}`);
      }
    }
    expect(shifted).toEqual([]);
  });
});
