import * as fs from 'node:fs';
import * as path from 'node:path';
import { App } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import {
  CONTEXT_KEYS,
  DeploymentSettingsError,
  ENVIRONMENT_DEFAULTS,
  readDeploymentSettings,
} from '../../lib/deployment-settings';
import { EXAMPLE_CERTIFICATE_ARN } from './service-stack-fixture';

const settingsFor = (context: Record<string, unknown>) =>
  readDeploymentSettings(new App({ context }));

describe('Function: readDeploymentSettings', () => {
  it('reads the test defaults when only the environment is given', () => {
    // Act
    const settings = settingsFor({ environment: 'test' });

    // Assess
    expect(settings).toEqual({
      environment: 'test',
      ...ENVIRONMENT_DEFAULTS.test,
      alarmEmail: undefined,
      apiDomain: undefined,
      console: { domain: undefined, webAclArn: undefined, originSecretGeneration: 0 },
      modelProvider: undefined,
      functionSourceMaps: false,
    });
    expect(settings.logRetentionDays).toBe(RetentionDays.ONE_MONTH);
  });

  it('gives live dedicated search masters, zone awareness and a year of logs', () => {
    const settings = settingsFor({ environment: 'live' });

    expect(settings.search).toMatchObject({ masterCount: 3, availabilityZoneCount: 2 });
    expect(settings.search.instanceCount % settings.search.availabilityZoneCount).toBe(0);
    expect(settings.logRetentionDays).toBe(RetentionDays.ONE_YEAR);
    expect(settings.syncWorkerConcurrency).toBe(10);
  });

  it('accepts -c strings for numbers and flags, as the CLI passes them', () => {
    const settings = settingsFor({
      environment: 'test',
      logRetentionDays: '90',
      searchInstanceCount: '2',
      searchAvailabilityZones: '2',
      apiGatewayCloudWatchRole: 'false',
      alarmEmail: 'oncall@example.com',
      webhookDispatcherConcurrency: '25',
      syncWorkerConcurrency: '4',
    });

    expect(settings.logRetentionDays).toBe(RetentionDays.THREE_MONTHS);
    expect(settings.search).toMatchObject({ instanceCount: 2, availabilityZoneCount: 2 });
    expect(settings.apiGatewayCloudWatchRole).toBe(false);
    expect(settings.alarmEmail).toBe('oncall@example.com');
    expect(settings.webhookDispatcherConcurrency).toBe(25);
    expect(settings.syncWorkerConcurrency).toBe(4);
  });

  it('puts the live search domain in a VPC with a NAT gateway per zone, and keeps test public (P50)', () => {
    expect(settingsFor({ environment: 'live' })).toMatchObject({
      searchNetwork: 'vpc',
      natGateways: 2,
    });
    expect(settingsFor({ environment: 'test' })).toMatchObject({
      searchNetwork: 'public',
      natGateways: 1,
    });
  });

  it('lets a test deployment rehearse the live network, and live save on NAT gateways', () => {
    expect(settingsFor({ environment: 'test', searchNetwork: 'vpc' }).searchNetwork).toBe('vpc');
    expect(settingsFor({ environment: 'live', natGateways: '1' }).natGateways).toBe(1);
  });

  it('reads the model provider from a secret name or ARN and an optional base URL (P55)', () => {
    const arn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:aqs/openai-AbC123';
    expect(settingsFor({ environment: 'test', modelApiKeySecret: 'aqs/openai' })).toMatchObject({
      modelProvider: { apiKeySecret: 'aqs/openai', baseUrl: undefined },
    });
    expect(
      settingsFor({
        environment: 'live',
        modelApiKeySecret: arn,
        modelBaseUrl: 'https://models.example.com/v1',
      }).modelProvider,
    ).toEqual({ apiKeySecret: arn, baseUrl: 'https://models.example.com/v1' });
  });

  it('ships source maps only when asked (P54)', () => {
    expect(settingsFor({ environment: 'live' }).functionSourceMaps).toBe(false);
    expect(
      settingsFor({ environment: 'test', functionSourceMaps: 'true' }).functionSourceMaps,
    ).toBe(true);
  });

  it('treats an empty value as not set', () => {
    expect(settingsFor({ environment: 'test', alarmEmail: '' }).alarmEmail).toBeUndefined();
  });

  it('reads a custom domain from apiDomainName and apiCertificateArn together', () => {
    const settings = settingsFor({
      environment: 'live',
      apiDomainName: 'api.example.com',
      apiCertificateArn: EXAMPLE_CERTIFICATE_ARN,
    });

    expect(settings.apiDomain).toEqual({
      domainName: 'api.example.com',
      certificateArn: EXAMPLE_CERTIFICATE_ARN,
    });
  });

  it('reads the console’s domain (certificate in us-east-1) and web ACL, none by default (P238)', () => {
    const certificateArn = EXAMPLE_CERTIFICATE_ARN.replace('eu-west-1', 'us-east-1');
    const webAclArn = `arn:aws:wafv2:us-east-1:123456789012:global/webacl/console/${'1'.repeat(8)}-1234-1234-1234-123456789012`;

    const settings = settingsFor({
      environment: 'live',
      consoleDomainName: 'console.example.com',
      consoleCertificateArn: certificateArn,
      consoleWebAclArn: webAclArn,
    });

    expect(settings.console).toEqual({
      domain: { domainName: 'console.example.com', certificateArn },
      webAclArn,
      originSecretGeneration: 0,
    });
    expect(settingsFor({ environment: 'test' }).console).toEqual({
      domain: undefined,
      webAclArn: undefined,
      originSecretGeneration: 0,
    });
  });

  it('reads which origin verify secret the console uses, 0 by default, a whole number to 9999 (P243)', () => {
    expect(
      settingsFor({ environment: 'live', consoleOriginSecretGeneration: '3' }).console
        .originSecretGeneration,
    ).toBe(3);
    for (const wrong of ['-1', '1.5', '10000', 'next']) {
      expect(() =>
        settingsFor({ environment: 'live', consoleOriginSecretGeneration: wrong }),
      ).toThrow(/context "consoleOriginSecretGeneration"/);
    }
  });

  it.each([
    [
      { environment: 'test', consoleDomainName: 'console.example.com' },
      /"consoleDomainName" and "consoleCertificateArn" go together/,
    ],
    [
      {
        environment: 'test',
        consoleDomainName: 'console.example.com',
        consoleCertificateArn: EXAMPLE_CERTIFICATE_ARN,
      },
      /context "consoleCertificateArn" must be the ARN of an ACM certificate in us-east-1/,
    ],
    [
      {
        environment: 'test',
        consoleWebAclArn:
          'arn:aws:wafv2:eu-west-1:123456789012:regional/webacl/api/12345678-1234-1234-1234-123456789012',
      },
      /context "consoleWebAclArn" must be the ARN of a CloudFront-scope \(global\) WAF web ACL/,
    ],
    [{ environment: 'prod' }, /context "environment" must be one of "live", "test" \(got "prod"\)/],
    [{}, /context "environment" must be one of "live", "test" \(not set\)/],
    [{ environment: 'test', logRetentionDays: 42 }, /context "logRetentionDays" must be one of/],
    [
      { environment: 'test', searchInstanceCount: 'two' },
      /context "searchInstanceCount" must be a whole number/,
    ],
    [
      { environment: 'test', alarmEmail: 'not-an-address' },
      /context "alarmEmail" must be an e-mail address/,
    ],
    [
      { environment: 'test', apiGatewayCloudWatchRole: 'yes' },
      /context "apiGatewayCloudWatchRole" must be true or false/,
    ],
    [
      { environment: 'test', webhookDispatcherConcurrency: 1 },
      /context "webhookDispatcherConcurrency" must be at least 2/,
    ],
    [
      { environment: 'test', syncWorkerConcurrency: '1' },
      /context "syncWorkerConcurrency" must be at least 2/,
    ],
    [
      { environment: 'test', apiDomainName: 'api.example.com' },
      /"apiDomainName" and "apiCertificateArn" go together/,
    ],
    [
      { environment: 'test', searchNetwork: 'private' },
      /context "searchNetwork" must be one of "vpc", "public" \(got "private"\)/,
    ],
    [
      { environment: 'live', searchNetwork: 'public' },
      /"searchNetwork" must be "vpc" for a live deployment/,
    ],
    [{ environment: 'live', natGateways: 0 }, /context "natGateways" must be at least 1/],
    [
      { environment: 'test', modelApiKeySecret: 'sk-proj-looks like a key!' },
      /context "modelApiKeySecret" must be the name of a Secrets Manager secret/,
    ],
    [
      { environment: 'test', modelApiKeySecret: 'arn:aws:secretsmanager:eu-west-1:1:secret:x' },
      /context "modelApiKeySecret" must be the name of a Secrets Manager secret/,
    ],
    [
      { environment: 'test', modelApiKeySecret: 'aqs/openai', modelBaseUrl: 'http://models' },
      /context "modelBaseUrl" must be an https:\/\/ URL/,
    ],
    [
      { environment: 'test', modelBaseUrl: 'https://models.example.com/v1' },
      /"modelBaseUrl" needs "modelApiKeySecret"/,
    ],
    [
      { environment: 'test', functionSourceMaps: 'yes' },
      /context "functionSourceMaps" must be true or false/,
    ],
    [{ environment: 'live', natGateways: 3 }, /context "natGateways" must be at most 2/],
    [
      { environment: 'live', searchAvailabilityZones: 3, searchInstanceCount: 3 },
      /"searchAvailabilityZones" must be at most 2 with "searchNetwork" "vpc"/,
    ],
  ])('rejects %j, naming the key', (context, message) => {
    expect(() => settingsFor(context)).toThrow(DeploymentSettingsError);
    expect(() => settingsFor(context)).toThrow(message);
  });

  it('tells how to set a value', () => {
    expect(() => settingsFor({ environment: 'staging' })).toThrow(/-c environment=test/);
  });

  it('documents every context key in docs/deployment/configuration.md', () => {
    const docs = fs.readFileSync(
      path.resolve(__dirname, '..', '..', 'docs', 'deployment', 'configuration.md'),
      'utf8',
    );
    for (const key of CONTEXT_KEYS) expect(docs).toContain(`\`${key}\``);
  });
});
