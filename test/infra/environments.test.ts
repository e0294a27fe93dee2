import type { Template } from 'aws-cdk-lib/assertions';
import { Match } from 'aws-cdk-lib/assertions';
import { FAMILIES } from '../../layers/core/http/routes/route-table';
import { DeploymentSettingsError } from '../../lib/deployment-settings';
import type { ServiceStack } from '../../lib/service-stack';
import { buildServiceStack, EXAMPLE_CERTIFICATE_ARN, templateOf } from './service-stack-fixture';

/**
 * SVC_ENVIRONMENT of every function that has one (D10: the kind of key the
 * deployment accepts): the families, the five queue and stream workers
 * (sync, ingestion, evaluations, dispatcher, publisher) and the sync scheduler, not the
 * fallback nor the search index bootstrap (it reads no keys) and its provider.
 */
function functionEnvironments(template: Template): string[] {
  return Object.values(template.findResources('AWS::Lambda::Function'))
    .map((fn) => fn.Properties.Environment?.Variables?.SVC_ENVIRONMENT as string | undefined)
    .filter((value): value is string => value !== undefined);
}

describe('Class: ServiceStack across environments (D10)', () => {
  it('passes environment "test" to the functions as SVC_ENVIRONMENT', () => {
    const template = templateOf(buildServiceStack({ environment: 'test' }));

    expect(functionEnvironments(template)).toEqual(Array(FAMILIES.length + 6).fill('test'));
  });

  describe('environment "live" with alarm e-mail and custom domain', () => {
    let stack: ServiceStack;
    let template: Template;

    beforeAll(() => {
      const built = buildServiceStack({
        environment: 'live',
        alarmEmail: 'oncall@example.com',
        apiDomainName: 'api.example.com',
        apiCertificateArn: EXAMPLE_CERTIFICATE_ARN,
      });
      stack = built.stack;
      template = templateOf(built);
    });

    it('passes environment "live" to the functions as SVC_ENVIRONMENT', () => {
      expect(functionEnvironments(template)).toEqual(Array(FAMILIES.length + 6).fill('live'));
      expect(stack.stackName).toBe('AgentQueryService-live');
    });

    it('reserves more concurrency for webhook deliveries', () => {
      const dispatcher = stack.getLogicalId(
        stack.webhookDispatcher.worker.function.node.defaultChild as never,
      );
      expect(
        template.findResources('AWS::Lambda::Function')[dispatcher]?.Properties
          .ReservedConcurrentExecutions,
      ).toBe(50);
      template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        ScalingConfig: { MaximumConcurrency: 50 },
      });
    });

    it('retains the table and protects it from deletion', () => {
      template.hasResource('AWS::DynamoDB::Table', {
        DeletionPolicy: 'Retain',
        UpdateReplacePolicy: 'Retain',
        Properties: Match.objectLike({ DeletionProtectionEnabled: true }),
      });
      // Both keys: the stores' and the secrets' (sealed secrets are unreadable without it).
      for (const key of Object.values(template.findResources('AWS::KMS::Key'))) {
        expect(key.DeletionPolicy).toBe('Retain');
      }
      template.hasResource('AWS::OpenSearchService::Domain', { DeletionPolicy: 'Retain' });
    });

    it('runs a zone-aware search domain with dedicated masters', () => {
      template.hasResourceProperties('AWS::OpenSearchService::Domain', {
        ClusterConfig: Match.objectLike({
          ZoneAwarenessEnabled: true,
          ZoneAwarenessConfig: { AvailabilityZoneCount: 2 },
          DedicatedMasterEnabled: true,
          DedicatedMasterCount: 3,
        }),
      });
    });

    it('keeps logs for a year', () => {
      for (const group of Object.values(template.findResources('AWS::Logs::LogGroup'))) {
        expect(group.Properties.RetentionInDays).toBe(365);
      }
    });

    it('serves the custom domain with TLS 1.2 and turns the execute-api endpoint off', () => {
      template.hasResourceProperties('AWS::ApiGateway::DomainName', {
        DomainName: 'api.example.com',
        RegionalCertificateArn: EXAMPLE_CERTIFICATE_ARN,
        SecurityPolicy: 'TLS_1_2',
        EndpointConfiguration: { Types: ['REGIONAL'] },
      });
      template.resourceCountIs('AWS::ApiGateway::BasePathMapping', 1);
      template.hasResourceProperties('AWS::ApiGateway::RestApi', {
        DisableExecuteApiEndpoint: true,
      });
      template.hasOutput('ApiUrl', { Value: 'https://api.example.com/' });
      template.hasOutput('ApiDomainTarget', {});
    });

    it('subscribes the alarm e-mail to the alarm topic', () => {
      template.hasResourceProperties('AWS::SNS::Subscription', {
        Protocol: 'email',
        Endpoint: 'oncall@example.com',
      });
    });
  });

  it('fails clearly on an unknown environment', () => {
    expect(() => buildServiceStack({ environment: 'production' })).toThrow(DeploymentSettingsError);
    expect(() => buildServiceStack({ environment: 'production' })).toThrow(
      /Invalid CDK context: context "environment" must be one of "live", "test"/,
    );
  });
});
