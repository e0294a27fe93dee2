import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small website about a made-up product, served on loopback, so the
 * README's tour and docs/api-tour.md can sync and query something on a machine without
 * internet (`npm run demo-site`; the service needs SVC_ALLOW_PRIVATE_URLS=true
 * to crawl it).
 */
const PAGES: Readonly<Record<string, { title: string; body: string }>> = {
  '/': {
    title: 'Nimbus Lamp help center',
    body: `<h1>Nimbus Lamp help center</h1>
<p>The Nimbus Lamp is a smart desk lamp with adjustable colour temperature and a phone app.</p>
<ul><li><a href="/setup">Setting up your lamp</a></li><li><a href="/returns">Returns and refunds</a></li>
<li><a href="/warranty">Warranty</a></li><li><a href="/troubleshooting">Troubleshooting</a></li></ul>`,
  },
  '/setup': {
    title: 'Setting up your lamp',
    body: `<h1>Setting up your lamp</h1>
<h2>Connecting to Wi-Fi</h2><p>Hold the power button for five seconds until the light pulses blue, then open the Nimbus app and choose Add lamp. The lamp works with 2.4 GHz Wi-Fi networks only.</p>
<h2>Resetting your password</h2><p>To reset your account password, open the app, tap Sign in, then Forgot password. A reset link is emailed to you and stays valid for 30 minutes.</p>
<h2>On mobile</h2><p>On a phone, the reset link opens the app directly if it is installed; otherwise it opens the website.</p>`,
  },
  '/returns': {
    title: 'Returns and refunds',
    body: `<h1>Returns and refunds</h1>
<p>You can return a Nimbus Lamp within 30 days of delivery for a full refund.</p>
<p>Return shipping is free in the EU and the UK. Refunds reach your card within 5 business days of the lamp arriving at our warehouse.</p>`,
  },
  '/warranty': {
    title: 'Warranty',
    body: `<h1>Warranty</h1>
<p>Every Nimbus Lamp has a two-year warranty covering the LED panel and the electronics.</p>
<p>The warranty does not cover damage from liquids or from using a charger other than the one supplied.</p>`,
  },
  '/troubleshooting': {
    title: 'Troubleshooting',
    body: `<h1>Troubleshooting</h1>
<h2>The lamp flickers</h2><p>Flickering usually means the dimmer is below 5 percent; raise the brightness or update the firmware from the app.</p>
<h2>The app cannot find the lamp</h2><p>Make sure your phone is on the same 2.4 GHz network and Bluetooth is on, then restart the lamp.</p>`,
  },
};

function page(path: string): string | undefined {
  const found = PAGES[path];
  if (!found) return undefined;
  return `<!doctype html><html><head><title>${found.title}</title></head><body>
<nav><a href="/">Home</a></nav><main>${found.body}</main><footer>Nimbus Lamp, a made-up product for trying the service.</footer></body></html>`;
}

export async function startDemoSite(
  port = 8080,
  host = '127.0.0.1',
): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (path === '/robots.txt') {
      response.writeHead(200, { 'Content-Type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
      return;
    }
    const html = page(path);
    if (!html) {
      response.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found');
      return;
    }
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(html);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  return { server, url: `http://${host}:${bound}/` };
}
