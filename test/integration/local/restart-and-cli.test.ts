import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateApiKey } from '../../../layers/core/domain/api-key';
import { runCli } from '../../../lib/local/admin-cli';
import { parseLocalConfig } from '../../../lib/local/local-config';
import { type LocalRuntime, startLocalRuntime } from '../../../lib/local/runtime';
import { api, json } from '../../support/http-client';

/** Runs `svc …` in-process and returns its exit code and output. */
async function svc(args: string[], env: Record<string, string>) {
  const lines: string[] = [];
  const code = await runCli(args, { out: (line) => lines.push(line), env });
  return { code, output: lines.join('\n') };
}

describe('Local runtime: data survives restarts; the admin CLI (D36)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-data-'));
  const env = { SVC_DATA_DIR: dataDir, PORT: '0', SVC_DYNAMODB_PORT: '0', HOST: '127.0.0.1' };
  const start = (extra: Record<string, string> = {}) =>
    startLocalRuntime(parseLocalConfig({ ...env, ...extra }));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  let bootstrapKey: string;
  let agentId: string;
  let orgId: string;
  let cliKey: { id: string; key: string };

  it('creates an organization and key with the CLI while the server runs', async () => {
    const runtime: LocalRuntime = await start();
    try {
      // Prepare
      expect(runtime.bootstrap.firstStart).toBe(true);
      bootstrapKey = runtime.bootstrap.newKey ?? '';
      const created = await api(runtime.url, '/api/v1/agents', {
        method: 'POST',
        key: bootstrapKey,
        body: { name: 'Kept', data_source_ids: [] },
      });
      agentId = json(created).id;
      const cliEnv = { ...env, SVC_DYNAMODB_PORT: new URL(runtime.dynamoDbEndpoint).port };

      // Act
      const org = await svc(
        ['orgs', 'create', '--name', 'Acme', '--plan', 'pro', '--json'],
        cliEnv,
      );
      orgId = JSON.parse(org.output).id;
      const key = await svc(
        ['keys', 'create', '--org', orgId, '--scopes', 'Read,Write', '--json'],
        cliEnv,
      );
      cliKey = JSON.parse(key.output);

      // Assess
      expect(org.code).toBe(0);
      expect(key.code).toBe(0);
      expect(cliKey).toMatchObject({
        org_id: orgId,
        scopes: ['Read', 'Write'],
        environment: 'test',
      });
      expect(cliKey.key).toMatch(/^svcsk_test_/);
      const list = await api(runtime.url, '/api/v1/agents', { key: cliKey.key });
      expect(list.status).toBe(200);
      expect(json(list).total).toBe(0); // the new organization sees none of the bootstrap org's agents
    } finally {
      await runtime.end();
    }
  });

  it('reaches the data directory directly when the server is stopped', async () => {
    const listed = await svc(['keys', 'list', '--org', orgId, '--json'], env);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.output).keys.map((k: { id: string }) => k.id)).toEqual([cliKey.id]);
    expect(listed.output).not.toContain(cliKey.key);

    const revoked = await svc(['keys', 'revoke', '--org', orgId, '--key', cliKey.id], env);
    expect(revoked).toMatchObject({ code: 0, output: `Revoked ${cliKey.id}` });
  });

  it('keeps its data across a restart and does not bootstrap twice', async () => {
    const runtime = await start();
    try {
      expect(runtime.bootstrap).toMatchObject({ firstStart: false, newKey: null });
      const agent = await api(runtime.url, `/api/v1/agents/${agentId}`, { key: bootstrapKey });
      expect(agent.status).toBe(200);
      expect(json(agent).name).toBe('Kept');
      expect((await api(runtime.url, '/api/v1/agents', { key: cliKey.key })).status).toBe(401);
    } finally {
      await runtime.end();
    }
  });

  it('registers SVC_BOOTSTRAP_KEY as an Admin key', async () => {
    const preset = generateApiKey('test');
    const runtime = await start({ SVC_BOOTSTRAP_KEY: preset });
    try {
      expect(runtime.bootstrap.newKey).toBe(preset);
      expect((await api(runtime.url, '/api/v1/agents', { key: preset })).status).toBe(200);
    } finally {
      await runtime.end();
    }
  });

  it('refuses a malformed SVC_BOOTSTRAP_KEY before starting', () => {
    expect(() => parseLocalConfig({ SVC_BOOTSTRAP_KEY: 'svcsk_test_nope' })).toThrow(
      /SVC_BOOTSTRAP_KEY/,
    );
    expect(() => parseLocalConfig({ SVC_BOOTSTRAP_KEY: generateApiKey('live') })).toThrow(
      /SVC_BOOTSTRAP_KEY/,
    );
  });

  it('answers usage errors with exit code 2', async () => {
    expect((await svc(['keys', 'create', '--org', 'org_bad', '--scopes', 'Read'], env)).code).toBe(
      2,
    );
    expect((await svc(['keys', 'create', '--org', orgId, '--scopes', 'Nope'], env)).code).toBe(2);
    expect((await svc(['frobnicate'], env)).code).toBe(2);
    expect((await svc(['keys', 'list', '--org', orgId, '--bogus'], env)).code).toBe(2);
  });
});
