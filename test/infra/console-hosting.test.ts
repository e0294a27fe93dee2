import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vm from 'node:vm';
import { App, Stack, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as s3 from 'aws-cdk-lib/aws-s3';
import type { IConstruct } from 'constructs';
import { SECURITY_HEADERS } from '../../layers/core/http/middlewares/response-headers';
import { responseHeadersOf } from '../../lib/console/cloudfront-headers';
import {
  CONSOLE_CONTENT_SECURITY_POLICY,
  CONSOLE_SECURITY_HEADERS,
} from '../../lib/console/security-headers';
import {
  ConsoleHosting,
  DEEP_LINK_FUNCTION,
  ENTRY_CACHE_CONTROL,
  HASHED_ASSET_CACHE_CONTROL,
} from '../../lib/constructs/console-hosting';
import type { ServiceStack } from '../../lib/service-stack';
import { familiesThat } from './family-needs';
import {
  buildServiceStack,
  consoleFixtureDirectory,
  EXAMPLE_CERTIFICATE_ARN,
  logicalIdOf,
  ownFunctions,
} from './service-stack-fixture';

type Resource = { Properties: Record<string, any>; DependsOn?: string[] };

const CONSOLE_CERTIFICATE_ARN = EXAMPLE_CERTIFICATE_ARN.replace('eu-west-1', 'us-east-1');
const CONSOLE_WEB_ACL_ARN =
  'arn:aws:wafv2:us-east-1:123456789012:global/webacl/console/12345678-1234-1234-1234-123456789012';

/** CloudFront's managed policies, by the ids CloudFront gives them. */
const CACHING_OPTIMIZED = '658327ea-f89d-4fab-a63d-7e88639e58f6';
const CACHING_DISABLED = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';
const ALL_VIEWER_EXCEPT_HOST_HEADER = 'b689b0a8-53d0-40ab-baf2-68738e2966ac';

function only(template: Template, type: string): [string, Resource] {
  const found = Object.entries(template.findResources(type)) as Array<[string, Resource]>;
  if (found.length !== 1) throw new Error(`expected one ${type}, found ${found.length}`);
  return found[0] as [string, Resource];
}

function distributionConfig(template: Template): Record<string, any> {
  return only(template, 'AWS::CloudFront::Distribution')[1].Properties.DistributionConfig;
}

/** Rule ids acknowledged on `scope` itself. */
function acknowledgedOn(scope: IConstruct): string[] {
  return scope.node.metadata
    .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
    .flatMap((entry) => Object.keys(entry.data as Record<string, unknown>))
    .map((id) => id.replace(/^annotation::/i, ''));
}

describe('Class: ConsoleHosting (issue 21, P235–P238)', () => {
  describe('in the service stack, environment "test" (no custom domains)', () => {
    let stack: ServiceStack;
    let template: Template;
    beforeAll(() => {
      stack = buildServiceStack({ environment: 'test' }).stack;
      template = Template.fromStack(stack);
    });

    it('keeps the console in a private, encrypted, TLS-only bucket with access logs', () => {
      const bucketId = logicalIdOf(stack.console.bucket);
      template.hasResourceProperties('AWS::S3::Bucket', {
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        BucketEncryption: {
          ServerSideEncryptionConfiguration: [
            { ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } },
          ],
        },
        LoggingConfiguration: {
          DestinationBucketName: { Ref: logicalIdOf(stack.files.accessLogBucket) },
          LogFilePrefix: 'console/',
        },
      });
      template.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: { Ref: bucketId },
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            }),
          ]),
        },
      });
    });

    it('lets only the distribution read it, through origin access control', () => {
      const [distributionId] = only(template, 'AWS::CloudFront::Distribution');
      const [controlId] = only(template, 'AWS::CloudFront::OriginAccessControl');
      template.hasResourceProperties('AWS::CloudFront::OriginAccessControl', {
        OriginAccessControlConfig: {
          OriginAccessControlOriginType: 's3',
          SigningBehavior: 'always',
          SigningProtocol: 'sigv4',
        },
      });
      const s3Origin = distributionConfig(template).Origins.find(
        (origin: Record<string, any>) => origin.S3OriginConfig,
      );
      expect(s3Origin.DomainName).toEqual({
        'Fn::GetAtt': [logicalIdOf(stack.console.bucket), 'RegionalDomainName'],
      });
      expect(s3Origin.OriginAccessControlId).toEqual({ 'Fn::GetAtt': [controlId, 'Id'] });
      template.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: { Ref: logicalIdOf(stack.console.bucket) },
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Allow',
              Principal: { Service: 'cloudfront.amazonaws.com' },
              Action: 's3:GetObject',
              Condition: {
                StringEquals: {
                  'AWS:SourceArn': Match.objectLike({
                    'Fn::Join': Match.arrayWith([Match.arrayWith([{ Ref: distributionId }])]),
                  }),
                },
              },
            }),
          ]),
        },
      });
    });

    it('serves the console with its headers, redirecting plain HTTP, deep links answered by index.html', () => {
      const config = distributionConfig(template);
      const behavior = config.DefaultCacheBehavior;

      expect(config.DefaultRootObject).toBe('index.html');
      expect(behavior).toMatchObject({
        ViewerProtocolPolicy: 'redirect-to-https',
        AllowedMethods: ['GET', 'HEAD'],
        CachePolicyId: CACHING_OPTIMIZED,
        ResponseHeadersPolicyId: { Ref: logicalIdOf(stack.console.consoleHeaders) },
        FunctionAssociations: [
          {
            EventType: 'viewer-request',
            FunctionARN: { 'Fn::GetAtt': [expect.any(String), 'FunctionARN'] },
          },
        ],
      });
      // 403/404 from the bucket are not turned into pages: /api/* errors must pass unchanged.
      expect(config.CustomErrorResponses).toBeUndefined();
      template.hasResourceProperties('AWS::CloudFront::Function', {
        AutoPublish: true,
        FunctionCode: DEEP_LINK_FUNCTION,
        FunctionConfig: Match.objectLike({ Runtime: 'cloudfront-js-2.0' }),
      });
    });

    it('sends /api/* to the API stage uncached, with every header but Host, all methods, HTTPS only', () => {
      const config = distributionConfig(template);
      const [api] = config.CacheBehaviors;
      const apiOrigin = config.Origins.find(
        (origin: Record<string, any>) => origin.Id === api.TargetOriginId,
      );

      expect(config.CacheBehaviors).toHaveLength(1);
      expect(api).toMatchObject({
        PathPattern: '/api/*',
        ViewerProtocolPolicy: 'redirect-to-https',
        AllowedMethods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'],
        CachePolicyId: CACHING_DISABLED,
        OriginRequestPolicyId: ALL_VIEWER_EXCEPT_HOST_HEADER,
        ResponseHeadersPolicyId: { Ref: logicalIdOf(stack.console.apiHeaders) },
      });
      expect(apiOrigin).toMatchObject({
        DomainName: {
          'Fn::Join': [
            '',
            [
              { Ref: logicalIdOf(stack.http.api) },
              '.execute-api.',
              { Ref: 'AWS::Region' },
              '.',
              { Ref: 'AWS::URLSuffix' },
            ],
          ],
        },
        OriginPath: '/test',
        CustomOriginConfig: {
          OriginProtocolPolicy: 'https-only',
          OriginSSLProtocols: ['TLSv1.2'],
          OriginReadTimeout: 60,
        },
      });
    });

    it('answers the console with CONSOLE_SECURITY_HEADERS: the CSP and HSTS, replacing any other', () => {
      const [, policy] = Object.entries(
        template.findResources('AWS::CloudFront::ResponseHeadersPolicy'),
      ).find(([id]) => id === logicalIdOf(stack.console.consoleHeaders)) as [string, Resource];
      const security = policy.Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig;

      expect(security).toEqual({
        ContentSecurityPolicy: {
          ContentSecurityPolicy: CONSOLE_CONTENT_SECURITY_POLICY,
          Override: true,
        },
        StrictTransportSecurity: {
          AccessControlMaxAgeSec: 31536000,
          IncludeSubdomains: true,
          Preload: false,
          Override: true,
        },
        ContentTypeOptions: { Override: true },
        ReferrerPolicy: { ReferrerPolicy: 'same-origin', Override: true },
        FrameOptions: { FrameOption: 'DENY', Override: true },
      });
      expect(policy.Properties.ResponseHeadersPolicyConfig.CustomHeadersConfig).toBeUndefined();
    });

    it('fills in the API’s own security headers (HSTS included) on /api/*, never replacing the functions’', () => {
      const [, policy] = Object.entries(
        template.findResources('AWS::CloudFront::ResponseHeadersPolicy'),
      ).find(([id]) => id === logicalIdOf(stack.console.apiHeaders)) as [string, Resource];
      const config = policy.Properties.ResponseHeadersPolicyConfig;

      expect(config.SecurityHeadersConfig).toMatchObject({
        StrictTransportSecurity: {
          AccessControlMaxAgeSec: 31536000,
          IncludeSubdomains: true,
          Override: false,
        },
        ContentSecurityPolicy: {
          ContentSecurityPolicy: SECURITY_HEADERS['Content-Security-Policy'],
          Override: false,
        },
      });
      expect(config.CustomHeadersConfig.Items).toEqual([
        { Header: 'Cache-Control', Value: SECURITY_HEADERS['Cache-Control'], Override: false },
      ]);
    });

    it('uses the default certificate (TLS policy fixed by CloudFront) and says so to cdk-nag (P238)', () => {
      const config = distributionConfig(template);

      expect(config.ViewerCertificate).toBeUndefined();
      expect(config.Aliases).toBeUndefined();
      expect(acknowledgedOn(stack.console.distribution)).toEqual(
        expect.arrayContaining(['AwsSolutions-CFR4', 'AwsSolutions-CFR2']),
      );
    });

    it('logs every request to a log bucket of its own that keeps ACLs for CloudFront’s log delivery', () => {
      expect(distributionConfig(template).Logging).toEqual({
        Bucket: { 'Fn::GetAtt': [logicalIdOf(stack.console.logBucket), 'RegionalDomainName'] },
        Prefix: 'cloudfront/',
      });
      template.hasResourceProperties('AWS::S3::Bucket', {
        OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerPreferred' }] },
        LifecycleConfiguration: {
          Rules: [Match.objectLike({ ExpirationInDays: 30, Status: 'Enabled' })],
        },
      });
    });

    it('copies hashed files (immutable) before index.html (no-cache), pruning neither', () => {
      const deployments = Object.entries(
        template.findResources('Custom::CDKBucketDeployment'),
      ) as Array<[string, Resource]>;
      const byCacheControl = new Map(
        deployments.map(([id, resource]) => [
          resource.Properties.SystemMetadata?.['cache-control'],
          { id, resource },
        ]),
      );
      const hashed = byCacheControl.get(HASHED_ASSET_CACHE_CONTROL);
      const entry = byCacheControl.get(ENTRY_CACHE_CONTROL);

      expect(deployments).toHaveLength(2);
      expect(hashed?.resource.Properties).toMatchObject({
        DestinationBucketKeyPrefix: 'assets/',
        Prune: false,
      });
      expect(entry?.resource.Properties.Prune).toBe(false);
      expect(entry?.resource.Properties.DestinationBucketKeyPrefix).toBeUndefined();
      expect(entry?.resource.DependsOn).toEqual(expect.arrayContaining([hashed?.id]));
    });

    it('gives every HTTP family the console’s origin for its CSRF check, and nothing else (P236)', () => {
      const distributionId = logicalIdOf(stack.console.distribution);
      const consoleOrigin = {
        'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId, 'DomainName'] }]],
      };
      const http = new Set(stack.http.functions.values());
      for (const [name, fn] of ownFunctions(stack)) {
        const variables =
          template.findResources('AWS::Lambda::Function')[logicalIdOf(fn.function)]?.Properties
            .Environment.Variables;
        expect({ name, origin: variables.SVC_CONSOLE_ORIGIN }).toEqual({
          name,
          origin: http.has(fn) ? consoleOrigin : undefined,
        });
      }
    });

    it('points SSO and connector callbacks at the console’s origin (P91, P237)', () => {
      const distributionId = logicalIdOf(stack.console.distribution);
      for (const family of familiesThat(
        (needs) => needs.environment?.includes('publicUrl') === true,
      )) {
        const fn = stack.http.functions.get(family);
        if (!fn) throw new Error(`no ${family} family`);
        const variables =
          template.findResources('AWS::Lambda::Function')[logicalIdOf(fn.function)]?.Properties
            .Environment.Variables;
        expect(variables.SVC_PUBLIC_URL).toEqual({
          'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId, 'DomainName'] }]],
        });
      }
    });

    it('outputs the console’s URL, where the operator signs in', () => {
      template.hasOutput('ConsoleUrl', {
        Value: {
          'Fn::Join': [
            '',
            [
              'https://',
              { 'Fn::GetAtt': [logicalIdOf(stack.console.distribution), 'DomainName'] },
              '/',
            ],
          ],
        },
      });
      expect(template.findOutputs('ConsoleDomainTarget')).toEqual({});
    });

    it('lets the console upload files to the file bucket from its origin, and nothing else (P251)', () => {
      const files = template.findResources('AWS::S3::Bucket')[logicalIdOf(stack.files.bucket)];

      expect(files?.Properties.CorsConfiguration).toEqual({
        CorsRules: [
          {
            AllowedOrigins: [
              {
                'Fn::Join': [
                  '',
                  [
                    'https://',
                    { 'Fn::GetAtt': [logicalIdOf(stack.console.distribution), 'DomainName'] },
                  ],
                ],
              },
            ],
            AllowedMethods: ['POST'],
            AllowedHeaders: ['*'],
            MaxAge: 3600,
          },
        ],
      });
    });
  });

  describe('in the service stack, environment "live" with custom domains and a web ACL', () => {
    let stack: ServiceStack;
    let template: Template;
    beforeAll(() => {
      stack = buildServiceStack({
        environment: 'live',
        apiDomainName: 'api.example.com',
        apiCertificateArn: EXAMPLE_CERTIFICATE_ARN,
        consoleDomainName: 'console.example.com',
        consoleCertificateArn: CONSOLE_CERTIFICATE_ARN,
        consoleWebAclArn: CONSOLE_WEB_ACL_ARN,
      }).stack;
      template = Template.fromStack(stack);
    });

    it('answers on its own name with TLS 1.2 at least (TLSv1.2_2021, SNI) and the web ACL', () => {
      const config = distributionConfig(template);

      expect(config.Aliases).toEqual(['console.example.com']);
      expect(config.ViewerCertificate).toEqual({
        AcmCertificateArn: CONSOLE_CERTIFICATE_ARN,
        MinimumProtocolVersion: 'TLSv1.2_2021',
        SslSupportMethod: 'sni-only',
      });
      expect(config.WebACLId).toBe(CONSOLE_WEB_ACL_ARN);
      expect(acknowledgedOn(stack.console.distribution)).not.toContain('AwsSolutions-CFR4');
      expect(acknowledgedOn(stack.console.distribution)).not.toContain('AwsSolutions-CFR2');
    });

    it('reaches the API on its custom domain (the execute-api endpoint is off there)', () => {
      const config = distributionConfig(template);
      const [api] = config.CacheBehaviors;
      const apiOrigin = config.Origins.find(
        (origin: Record<string, any>) => origin.Id === api.TargetOriginId,
      );

      expect(apiOrigin.DomainName).toBe('api.example.com');
      expect(apiOrigin.OriginPath).toBeUndefined();
    });

    it('names the custom domain as the console’s origin and URL, with the DNS target as an output', () => {
      const sso = stack.http.functions.get('sso');
      if (!sso) throw new Error('no sso family');
      const variables =
        template.findResources('AWS::Lambda::Function')[logicalIdOf(sso.function)]?.Properties
          .Environment.Variables;

      expect(variables.SVC_CONSOLE_ORIGIN).toBe('https://console.example.com');
      expect(variables.SVC_PUBLIC_URL).toBe('https://console.example.com');
      template.hasOutput('ConsoleUrl', { Value: 'https://console.example.com/' });
      template.hasOutput('ConsoleDomainTarget', {
        Value: { 'Fn::GetAtt': [logicalIdOf(stack.console.distribution), 'DomainName'] },
      });
    });

    it('keeps the distribution’s logs with the stack’s other live data', () => {
      template.hasResource('AWS::S3::Bucket', {
        Properties: Match.objectLike({
          OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerPreferred' }] },
        }),
        DeletionPolicy: 'Retain',
      });
    });
  });

  describe('on its own', () => {
    function hostingIn(directory: string): () => ConsoleHosting {
      return () => {
        const stack = new Stack(new App(), 'Probe');
        return new ConsoleHosting(stack, 'Console', {
          assetsDirectory: directory,
          api: { domainName: 'api.example.com' },
          serverAccessLogsBucket: new s3.Bucket(stack, 'Logs'),
        });
      };
    }

    it('refuses a directory without the built console, saying how to build it', () => {
      const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'aqs-no-console-'));

      expect(hostingIn(empty)).toThrow(/index\.html and .*assets\/\).*node web\/build\.mjs/);
    });

    it('builds from the fixture console', () => {
      expect(hostingIn(consoleFixtureDirectory())).not.toThrow();
    });
  });

  describe('deep links (the viewer-request function, P237)', () => {
    const rewrite = (uri: string): string => {
      const context = vm.createContext({});
      vm.runInContext(DEEP_LINK_FUNCTION, context);
      const handler = context.handler as (event: unknown) => { uri: string };
      return handler({ request: { uri } }).uri;
    };

    it.each([
      ['/', '/index.html'],
      ['/agents', '/index.html'],
      ['/agents/agt_01H/', '/index.html'],
      ['/settings/v1.2/keys', '/index.html'],
    ])('answers %s with index.html', (uri, expected) => {
      expect(rewrite(uri)).toBe(expected);
    });

    it.each(['/assets/index-3f2a9c1d.js', '/favicon.svg', '/index.html'])(
      'looks %s up as it is',
      (uri) => {
        expect(rewrite(uri)).toBe(uri);
      },
    );
  });

  describe('Function: responseHeadersOf', () => {
    it('carries every shared console header, so none is served differently in the cloud', () => {
      const { securityHeadersBehavior, customHeadersBehavior } = responseHeadersOf(
        CONSOLE_SECURITY_HEADERS,
        true,
      );

      expect(Object.keys(securityHeadersBehavior ?? {})).toHaveLength(
        Object.keys(CONSOLE_SECURITY_HEADERS).length,
      );
      expect(customHeadersBehavior).toBeUndefined();
    });

    it.each([
      [{ 'X-Frame-Options': 'ALLOW-FROM https://example.com' }],
      [{ 'Referrer-Policy': 'sometimes' }],
      [{ 'X-Content-Type-Options': 'sniff' }],
      [{ 'Strict-Transport-Security': 'max-age=forever' }],
      [{ 'Strict-Transport-Security': 'max-age=60; unknown' }],
    ])('refuses %j, which a response headers policy cannot express', (headers) => {
      expect(() => responseHeadersOf(headers, true)).toThrow(/cannot be expressed/);
    });

    it('keeps other headers as custom headers with the override asked for', () => {
      expect(responseHeadersOf({ 'Cache-Control': 'no-store' }, false)).toEqual({
        securityHeadersBehavior: {},
        customHeadersBehavior: {
          customHeaders: [{ header: 'Cache-Control', value: 'no-store', override: false }],
        },
      });
    });
  });
});
