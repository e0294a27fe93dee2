import { startDemoSite } from '../../../lib/local/demo-site';

describe('Demo site (npm run demo-site)', () => {
  it('serves linked HTML pages and a robots.txt on loopback', async () => {
    const { server, url } = await startDemoSite(0);
    try {
      const home = await fetch(url);
      const html = await home.text();
      expect(home.headers.get('content-type')).toMatch(/text\/html/);
      expect(html).toContain('href="/returns"');
      expect((await fetch(new URL('/returns', url))).status).toBe(200);
      expect(await (await fetch(new URL('/robots.txt', url))).text()).toContain('Allow: /');
      expect((await fetch(new URL('/missing', url))).status).toBe(404);
    } finally {
      server.close();
    }
  });
});
