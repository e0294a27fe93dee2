import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../../lib/local/admin-cli';
import { parseLocalConfig } from '../../../lib/local/local-config';
import { startLocalRuntime } from '../../../lib/local/runtime';
import { api, json } from '../../support/http-client';
import { WebSession } from '../../support/web-session';

/** Runs `svc …` in-process, with `stdin` as standard input, and returns its exit code and output. */
async function svc(args: string[], env: Record<string, string>, stdin?: string) {
  const lines: string[] = [];
  const code = await runCli(args, {
    out: (line) => lines.push(line),
    env,
    ...(stdin !== undefined ? { readStdin: async () => stdin } : {}),
  });
  return { code, output: lines.join('\n') };
}

const ADMIN = { email: 'Boss@Example.com', password: 'first admin password' };

describe('The first web administrator (D36, P67) and `svc users`', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-admin-'));
  const env = { SVC_DATA_DIR: dataDir, PORT: '0', SVC_DYNAMODB_PORT: '0', HOST: '127.0.0.1' };
  const withAdmin = {
    SVC_BOOTSTRAP_ADMIN_EMAIL: ADMIN.email,
    SVC_BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
  };
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('creates the bootstrap administrator on start, who can sign in', async () => {
    const invitations: string[] = [];
    const runtime = await startLocalRuntime(parseLocalConfig({ ...env, ...withAdmin }), {
      onUnsentMail: (about) => invitations.push(about.link),
    });
    try {
      const browser = new WebSession(runtime.url);
      const signIn = await browser.signIn('boss@example.com', ADMIN.password);

      expect(runtime.bootstrap.admin).toMatchObject({ email: ADMIN.email, created: true });
      expect(signIn.status).toBe(200);
      expect(json(signIn).user).toMatchObject({
        role: 'admin',
        org_id: runtime.bootstrap.organization.id,
      });

      // P61, P265: without SVC_SMTP_URL, the invitation mail is not sent; its link goes to onUnsentMail.
      const invited = await browser.request('/api/v1/users', {
        method: 'POST',
        body: { email: 'colleague@example.com', name: 'Colleague', role: 'train' },
      });
      expect(invitations).toEqual([json(invited).invitation.invitation_url]);
      expect(json(invited).invitation.mailed).toBe(false);
    } finally {
      await runtime.end();
    }
  });

  it('leaves the administrator as it is on a later start, even with another password given', async () => {
    const runtime = await startLocalRuntime(
      parseLocalConfig({ ...env, ...withAdmin, SVC_BOOTSTRAP_ADMIN_PASSWORD: 'a different one!' }),
    );
    try {
      const old = await new WebSession(runtime.url).signIn(ADMIN.email, ADMIN.password);

      expect(runtime.bootstrap.admin).toMatchObject({ email: ADMIN.email, created: false });
      expect(old.status).toBe(200);
    } finally {
      await runtime.end();
    }
  });

  it('refuses half a bootstrap administrator, or a short password, before starting', () => {
    expect(() => parseLocalConfig({ SVC_BOOTSTRAP_ADMIN_EMAIL: 'a@example.com' })).toThrow(
      /go together/,
    );
    expect(() =>
      parseLocalConfig({
        SVC_BOOTSTRAP_ADMIN_EMAIL: 'a@example.com',
        SVC_BOOTSTRAP_ADMIN_PASSWORD: 'short',
      }),
    ).toThrow(/SVC_BOOTSTRAP_ADMIN_PASSWORD/);
  });

  it('invites a user with `svc users create`, printing a link that sets the password once', async () => {
    const runtime = await startLocalRuntime(parseLocalConfig(env));
    try {
      const cliEnv = { ...env, SVC_DYNAMODB_PORT: new URL(runtime.dynamoDbEndpoint).port };
      const orgId = runtime.bootstrap.organization.id;

      const created = await svc(
        ['users', 'create', '--org', orgId, '--email', 'ops@example.com', '--role', 'admin'],
        cliEnv,
      );
      const token = /^ {2}(svcinv_[\w-]+)$/m.exec(created.output)?.[1] ?? '';
      const accepted = await api(runtime.url, '/api/v1/auth/invitations/accept', {
        method: 'POST',
        body: { token, password: 'ops password 2026' },
      });
      const listed = await svc(['users', 'list', '--org', orgId, '--json'], cliEnv);

      expect(created.code).toBe(0);
      expect(created.output).toContain('/api/v1/auth/invitations/accept');
      expect(accepted.status).toBe(200);
      expect(json(accepted).user).toMatchObject({ email: 'ops@example.com', role: 'admin' });
      expect(
        JSON.parse(listed.output).users.map((user: { email: string }) => user.email),
      ).toContain('ops@example.com');
    } finally {
      await runtime.end();
    }
  });

  it('sets the password from standard input with --password-stdin, and refuses a taken email', async () => {
    // The server is stopped: the CLI opens the data directory itself.
    const orgs = await svc(['orgs', 'create', '--name', 'Second', '--json'], env);
    const orgId = JSON.parse(orgs.output).id as string;

    const created = await svc(
      [
        'users',
        'create',
        '--org',
        orgId,
        '--email',
        'direct@example.com',
        '--password-stdin',
        '--json',
      ],
      env,
      'typed on stdin 2026\n',
    );
    const again = await svc(
      ['users', 'create', '--org', orgId, '--email', 'DIRECT@example.com'],
      env,
    );
    const runtime = await startLocalRuntime(parseLocalConfig(env));
    try {
      const signIn = await new WebSession(runtime.url).signIn(
        'direct@example.com',
        'typed on stdin 2026',
      );

      expect(created.code).toBe(0);
      expect(JSON.parse(created.output)).toMatchObject({ status: 'active', role: 'admin' });
      expect(JSON.parse(created.output).invitation).toBeUndefined();
      expect(again.code).toBe(1);
      expect(again.output).toMatch(/^Error: A user with the email/);
      expect(signIn.status).toBe(200);
    } finally {
      await runtime.end();
    }
  });
});
