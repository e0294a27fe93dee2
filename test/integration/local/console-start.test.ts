import { mkdtempSync, readFileSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ENTRY_POINTS, REPO_ROOT, start } from '../../support/child-process';
import { api, json } from '../../support/http-client';

const listening = (stdout: string) => /listening on (http:\/\/\S+)/.exec(stdout)?.[1] ?? '';
const cookieOf = (headers: Headers) =>
  headers
    .getSetCookie()
    .map((header) => header.split(';')[0])
    .join('; ');

/**
 * P227, P228: `npm start` builds the console when it is stale, serves it at
 * `/`, names it in the banner, says how to make the first administrator, and
 * prints a console link for every invitation.
 */
describe('npm start serves the console', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-console-start-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = { SVC_DATA_DIR: dataDir, PORT: '0', SVC_DYNAMODB_PORT: '0' };

  it('from a first start nobody can sign in to, to an invitation link', async () => {
    // A source file newer than the build: this start must rebuild.
    const main = join(REPO_ROOT, 'web', 'src', 'app', 'main.tsx');
    const now = new Date();
    utimesSync(main, now, now);

    const first = start(ENTRY_POINTS.start, [], env);
    try {
      const stdout = await first.waitFor(/Press Ctrl-C to stop/, 60_000);
      const url = listening(stdout);

      expect(stdout).toMatch(/Built the console into web\/dist/);
      expect(stdout).toContain(`console: ${url}/ (open it in a browser)`);
      expect(stdout).toContain(
        `Nobody can sign in yet: open ${url}/ in a browser on this machine to create the administrator.`,
      );
      const page = await api(url, '/agents');
      expect(page.status).toBe(200);
      expect(page.text).toBe(readFileSync(join(REPO_ROOT, 'web', 'dist', 'index.html'), 'utf8'));
      expect(page.headers.get('cache-control')).toBe('no-store');
      const script = /src="(\/assets\/main-\w+\.js)"/.exec(page.text)?.[1] ?? '';
      const asset = await api(url, script);
      expect(asset.status).toBe(200);
      expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');

      const administrator = await api(url, '/api/v1/setup/administrator', {
        method: 'POST',
        body: { email: 'first@example.com', name: 'First', password: 'a long enough password' },
      });
      expect(administrator.status).toBe(200);
      const invited = await api(url, '/api/v1/users', {
        method: 'POST',
        headers: {
          cookie: cookieOf(administrator.headers),
          'x-csrf-token': json(administrator).csrf_token,
        },
        body: { email: 'second@example.com', name: 'Second', role: 'readonly' },
      });
      const token = json(invited).invitation.token;
      await first.waitFor(new RegExp(`open ${url}/invitations/accept#token=${token}`));
    } finally {
      await first.stop();
    }

    // Fresh now, and somebody exists: no rebuild, no first-administrator line.
    const second = start(ENTRY_POINTS.start, [], env);
    try {
      const stdout = await second.waitFor(/Press Ctrl-C to stop/, 60_000);
      expect(stdout).not.toMatch(/Built the console/);
      expect(stdout).not.toMatch(/Nobody can sign in yet/);
      expect(stdout).toContain(`console: ${listening(stdout)}/`);
    } finally {
      await second.stop();
    }
  }, 120_000);
});
