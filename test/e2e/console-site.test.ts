import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONSOLE_SECURITY_HEADERS } from '../../lib/console/security-headers';
import { expectNestedError } from '../support/error-shapes';
import { api } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';

const INDEX =
  '<!doctype html><title>console</title><script type="module" src="/assets/main-ABC123.js"></script>';

/** P227: the console on the API's origin — the app for any path outside /api, assets cached for good. */
describe('The console served by the local runtime', () => {
  let service: TestService;
  let directory: string;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'console-site-'));
    mkdirSync(join(directory, 'assets'));
    writeFileSync(join(directory, 'index.html'), INDEX);
    writeFileSync(join(directory, 'assets', 'main-ABC123.js'), 'console.log("console")');
    writeFileSync(join(directory, 'assets', 'main-ABC123.css'), 'body{}');
    writeFileSync(join(directory, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    service = await startTestService({ consoleDirectory: directory });
  });
  afterAll(async () => {
    await service.end();
    rmSync(directory, { recursive: true, force: true });
  });

  const expectConsoleHeaders = (headers: Headers) => {
    for (const [name, value] of Object.entries(CONSOLE_SECURITY_HEADERS)) {
      expect(headers.get(name)).toBe(value);
    }
  };

  it.each([
    '/',
    '/agents',
    '/agents/agt_01jf3z8k7q2m4n6p8r0s2t4v6w/settings',
    '/sign-in?next=%2Fagents',
    '/index.html',
  ])('answers GET %s with the application, never cached', async (path) => {
    const response = await api(service.url, path);

    expect(response.status).toBe(200);
    expect(response.text).toBe(INDEX);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expectConsoleHeaders(response.headers);
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });

  it('serves hashed assets for a year, immutable, with their type', async () => {
    const script = await api(service.url, '/assets/main-ABC123.js');
    const styles = await api(service.url, '/assets/main-ABC123.css');

    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(styles.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expectConsoleHeaders(script.headers);
  });

  it('answers a hashed asset that is not there with 404, not the application', async () => {
    const response = await api(service.url, '/assets/main-OLDHASH.js');

    expect(response.status).toBe(404);
    expect(response.text).not.toContain('<!doctype html>');
  });

  it('answers HEAD without a body', async () => {
    const response = await fetch(`${service.url}/agents`, { method: 'HEAD' });

    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.text()).toBe('');
  });

  it.each([
    '/..%2f..%2fetc%2fpasswd',
    '/assets/..%2f..%2f..%2fpackage.json',
    '/%2e%2e/%2e%2e/package.json',
  ])('never serves a file outside its folder (%s)', async (path) => {
    const response = await api(service.url, path);

    expect(response.text).not.toContain('root:');
    expect(response.text).not.toContain('agent-query-service');
  });

  it('leaves /api to the API: unknown paths there are JSON 404s, and other methods outside it too', async () => {
    expectNestedError(await api(service.url, '/api/v1/nothing-here'), 404, 'not_found');
    expectNestedError(await api(service.url, '/api'), 404, 'not_found');
    expectNestedError(
      await api(service.url, '/agents', { method: 'POST', body: {} }),
      404,
      'not_found',
    );
    expect((await api(service.url, '/api/v1/agents', { key: service.adminKey })).status).toBe(200);
  });
});
