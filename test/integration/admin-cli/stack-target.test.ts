import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDbApiKeyRepository } from '../../../layers/core/adapters/dynamodb/api-key-repository';
import { systemClock } from '../../../layers/core/ports/clock.port';
import { authenticateApiKey } from '../../../layers/core/use-cases/api-keys/api-key-use-cases';
import { ENTRY_POINTS, run } from '../../support/child-process';
import { startTestTables, type TestTables } from '../../support/dynalite';
import {
  type FakeCloudFormation,
  startFakeCloudFormation,
} from '../../support/fake-cloudformation';

const LIVE_STACK = 'AgentQueryService-live';
const TABLE = 'AgentQueryService-live-DataTable1A2B3C4D-XYZ';

describe('svc --stack: day one on a deployed stack (DescribeStacks answered in AWS documented query-protocol XML, dynalite as the table)', () => {
  const home = mkdtempSync(join(tmpdir(), 'svc-operator-'));
  let tables: TestTables;
  let cloudFormation: FakeCloudFormation;
  /** An operator's shell: dummy credentials, a region, and the SDK's standard endpoint overrides. */
  let operator: Record<string, string>;

  beforeAll(async () => {
    tables = await startTestTables(TABLE);
    cloudFormation = await startFakeCloudFormation([
      {
        name: LIVE_STACK,
        outputs: {
          ApiUrl: 'https://example.execute-api.eu-west-1.amazonaws.com/live/',
          TableName: TABLE,
        },
        tags: { service: 'agent-query-service', environment: 'live' },
      },
      { name: 'SomethingElse', outputs: { BucketName: 'b' }, tags: {} },
    ]);
    operator = {
      HOME: home,
      AWS_CONFIG_FILE: join(home, 'no-config'),
      AWS_SHARED_CREDENTIALS_FILE: join(home, 'no-credentials'),
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'AKIAIOSFODNN7EXAMPLE',
      AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      AWS_ENDPOINT_URL_CLOUDFORMATION: cloudFormation.endpoint,
      AWS_ENDPOINT_URL_DYNAMODB: tables.dynamo.endpoint,
    };
  });
  afterAll(async () => {
    await cloudFormation.end();
    await tables.end();
    rmSync(home, { recursive: true, force: true });
  });

  const svc = (args: string[], env: Record<string, string> = operator) =>
    run(ENTRY_POINTS.svc, ['--stack', LIVE_STACK, ...args], env);

  it('creates the first organization and a live Admin key that then authenticates', async () => {
    // Act
    const org = await svc(['orgs', 'create', '--name', 'Acme', '--plan', 'enterprise', '--json']);
    const orgId: string = JSON.parse(org.stdout).id;
    const created = await svc(['keys', 'create', '--org', orgId, '--scopes', 'Admin', '--json']);
    const key: { id: string; key: string; environment: string } = JSON.parse(created.stdout);
    const listed = await svc(['orgs', 'list', '--json']);

    // Assess
    expect(org).toMatchObject({ code: 0, stderr: '' });
    expect(created).toMatchObject({ code: 0, stderr: '' });
    expect(key.environment).toBe('live');
    expect(key.key).toMatch(/^svcsk_live_/);
    expect(JSON.parse(listed.stdout).organizations).toEqual([
      expect.objectContaining({ id: orgId, name: 'Acme', plan: 'enterprise' }),
    ]);
    expect(cloudFormation.requests.map((form) => form.get('StackName'))).toContain(LIVE_STACK);
    // Looked up the way the functions do: the same adapter, the live deployment's rule (D10).
    const apiKeys = new DynamoDbApiKeyRepository(tables.client, TABLE);
    const principal = await authenticateApiKey(
      { apiKeys, clock: systemClock },
      `Bearer ${key.key}`,
      'live',
    );
    expect(principal).toMatchObject({ orgId, keyId: key.id, scopes: ['Admin'] });
  });

  it('refuses --env test on a live stack, naming the mismatch', async () => {
    const result = await svc([
      'keys',
      'create',
      '--org',
      'org_01jf3z8r9v2k4m6n8p0q2s4t6w',
      '--scopes',
      'Admin',
      '--env',
      'test',
    ]);

    expect(result.code).toBe(1);
    expect(result.stdout.trim()).toBe(
      'Error: --env test contradicts the stack, a live deployment that accepts only live keys; leave --env out',
    );
  });

  it.each([
    [
      'no credentials',
      ['orgs', 'list'],
      { AWS_ACCESS_KEY_ID: '', AWS_SECRET_ACCESS_KEY: '' },
      LIVE_STACK,
      /^Error: No AWS credentials found: /,
    ],
    [
      'an unknown stack',
      ['orgs', 'list'],
      {},
      'AgentQueryService-nope',
      /^Error: Stack AgentQueryService-nope not found in eu-west-1: /,
    ],
    [
      'a stack without a TableName output',
      ['orgs', 'list'],
      {},
      'SomethingElse',
      /^Error: Stack SomethingElse has no TableName output \(status CREATE_COMPLETE\)/,
    ],
    [
      'no region',
      ['orgs', 'list'],
      { AWS_REGION: '' },
      LIVE_STACK,
      /^Error: No AWS region: pass --region/,
    ],
  ])('says so in one line for %s', async (_case, args, env, stack, message) => {
    const result = await run(
      ENTRY_POINTS.svc,
      ['--stack', stack, ...args],
      withoutEmpty({ ...operator, ...env }),
    );

    expect(result.code).toBe(1);
    expect(result.stdout.trim()).toMatch(message);
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toBe('');
  });

  it('says access denied in one line, with the permission AWS names', async () => {
    cloudFormation.denyAll();

    const result = await svc(['orgs', 'list']);

    expect(result.code).toBe(1);
    expect(result.stdout.trim()).toMatch(
      /^Error: Access denied to cloudformation:DescribeStacks on AgentQueryService-live \(eu-west-1\): User: .* is not authorized to perform: cloudformation:DescribeStacks/,
    );
    expect(result.stderr).toBe('');
  });
});

/** An empty value stands for "unset" in the cases above. */
function withoutEmpty(env: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
}
