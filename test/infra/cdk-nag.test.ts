import { App, Stack, Validations } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks, NagRuleCompliance, rules, ServerlessChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import {
  type BuiltServiceStack,
  buildServiceStack,
  EXAMPLE_CERTIFICATE_ARN,
} from './service-stack-fixture';

/**
 * cdk-nag 3 is a policy-validation plugin, not an Aspect: findings are not
 * annotations but violations returned by the pack (and a failed synth when
 * the pack is registered with `Validations.of(app).addPlugins`, as
 * bin/app.ts does). Acknowledgments (`Validations.of(x).acknowledge`) are
 * honoured by both paths.
 */
function findings(
  scope: IConstruct,
): Array<{ rule: string; severity: string; paths: Array<string | undefined> }> {
  return [new AwsSolutionsChecks(), new ServerlessChecks()].flatMap((pack) =>
    pack.validateScope(scope).violations.map((violation) => ({
      rule: violation.ruleName,
      severity: violation.severity ?? 'error',
      paths: violation.violatingResources.map((resource) => resource.constructPath),
    })),
  );
}

/** Rule ids acknowledged on `scope` itself (not inherited from its parents), with their reasons. */
function acknowledgedOn(scope: IConstruct): Record<string, string> {
  return Object.fromEntries(
    scope.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) => Object.entries(entry.data as Record<string, unknown>))
      .map(([id, value]) => [
        // aws-cdk-lib writes the id with an "Annotation::" prefix.
        id.replace(/^annotation::/i, ''),
        typeof value === 'string' ? value : JSON.stringify(value),
      ]),
  );
}

const byPack = (pack: string, severity: string) => (finding: { rule: string; severity: string }) =>
  finding.rule.startsWith(`${pack}-`) && finding.severity === severity;

describe('cdk-nag: AwsSolutions and Serverless packs', () => {
  it('reports an unacknowledged finding (the packs are really checking)', () => {
    // Prepare
    const app = new App();
    const stack = new Stack(app, 'Probe');
    new sqs.Queue(stack, 'BareQueue');

    // Act
    const found = findings(stack).map((finding) => finding.rule);

    // Assess
    expect(found).toEqual(
      expect.arrayContaining([
        'AwsSolutions-SQS3',
        'AwsSolutions-SQS4',
        'Serverless-SQSRedrivePolicy',
      ]),
    );
  });

  describe.each([
    ['test defaults', { environment: 'test' }],
    [
      'live with alarm e-mail, custom domains and the console’s web ACL',
      {
        environment: 'live',
        alarmEmail: 'oncall@example.com',
        apiDomainName: 'api.example.com',
        apiCertificateArn: EXAMPLE_CERTIFICATE_ARN,
        consoleDomainName: 'console.example.com',
        consoleCertificateArn: EXAMPLE_CERTIFICATE_ARN.replace('eu-west-1', 'us-east-1'),
        consoleWebAclArn:
          'arn:aws:wafv2:us-east-1:123456789012:global/webacl/console/12345678-1234-1234-1234-123456789012',
      },
    ],
  ])('service stack, %s', (_name, context) => {
    let built: BuiltServiceStack;
    let synthError: unknown;

    beforeAll(() => {
      built = buildServiceStack(context);
      // As bin/app.ts does; registered before anything synthesizes the app,
      // since an app synthesizes (and validates) once.
      Validations.of(built.app).addPlugins(
        new AwsSolutionsChecks(built.app, { verbose: true }),
        new ServerlessChecks(built.app, { verbose: true }),
      );
      try {
        built.app.synth();
      } catch (error) {
        synthError = error;
      }
    });

    it.each([
      ['AwsSolutions', 'error'],
      ['AwsSolutions', 'warning'],
      ['Serverless', 'error'],
      ['Serverless', 'warning'],
    ])('has no unacknowledged %s %ss', (pack, severity) => {
      expect(findings(built.stack).filter(byPack(pack, severity))).toEqual([]);
    });

    it('synthesizes with both packs registered as plugins', () => {
      expect(synthError).toBeUndefined();
    });

    it('has no error or warning annotations from CDK itself', () => {
      const annotations = Annotations.fromStack(built.stack);
      expect(annotations.findError('*', Match.anyValue())).toEqual([]);
      expect(annotations.findWarning('*', Match.anyValue())).toEqual([]);
    });
  });

  describe('acknowledgments are as narrow as the design allows', () => {
    it('acknowledges the public search domain (OS1) in test only; live’s domain is in a VPC', () => {
      const test = buildServiceStack({ environment: 'test' }).stack;
      const live = buildServiceStack({ environment: 'live' }).stack;

      expect(acknowledgedOn(test.search.domain)['AwsSolutions-OS1']).toMatch(
        /searchNetwork=public.*"test" only/,
      );
      expect(acknowledgedOn(live.search.domain)).not.toHaveProperty(['AwsSolutions-OS1']);
      expect(rules.opensearch.OpenSearchInVPCOnly(live.search.domain)).toBe(
        NagRuleCompliance.COMPLIANT,
      );
    });

    it('acknowledges the default certificate’s TLS policy (CFR4) and the missing CloudFront web ACL (CFR2) only without a console domain and ACL (P238)', () => {
      const test = buildServiceStack({ environment: 'test' }).stack;
      const live = buildServiceStack({
        environment: 'live',
        consoleDomainName: 'console.example.com',
        consoleCertificateArn: EXAMPLE_CERTIFICATE_ARN.replace('eu-west-1', 'us-east-1'),
        consoleWebAclArn:
          'arn:aws:wafv2:us-east-1:123456789012:global/webacl/console/12345678-1234-1234-1234-123456789012',
      }).stack;
      const cfn = (stack: typeof test) => stack.console.distribution.node.defaultChild as never;

      expect(acknowledgedOn(test.console.distribution)['AwsSolutions-CFR4']).toMatch(
        /fixes at TLSv1.*consoleDomainName/,
      );
      expect(acknowledgedOn(test.console.distribution)['AwsSolutions-CFR2']).toMatch(
        /consoleWebAclArn/,
      );
      expect(acknowledgedOn(live.console.distribution)).not.toHaveProperty(['AwsSolutions-CFR4']);
      expect(acknowledgedOn(live.console.distribution)).not.toHaveProperty(['AwsSolutions-CFR2']);
      expect(rules.cloudfront.CloudFrontDistributionHttpsViewerNoOutdatedSSL(cfn(live))).toBe(
        NagRuleCompliance.COMPLIANT,
      );
      expect(rules.cloudfront.CloudFrontDistributionWAFIntegration(cfn(live))).toBe(
        NagRuleCompliance.COMPLIANT,
      );
    });

    it('acknowledges "no authorizer" on each method, naming what guards it, never on the whole API', () => {
      const { stack } = buildServiceStack({ environment: 'test' });
      const { api } = stack.http;

      expect(acknowledgedOn(api)).not.toHaveProperty(['AwsSolutions-APIG4']);
      expect(acknowledgedOn(api)).not.toHaveProperty(['AwsSolutions-COG4']);
      expect(api.methods.length).toBeGreaterThan(0);
      const fallbackId = stack.getLogicalId(
        stack.http.fallback.function.node.defaultChild as never,
      );
      for (const method of api.methods) {
        const acknowledged = acknowledgedOn(method);
        const servedByFallback = JSON.stringify(
          stack.resolve(
            (method.node.defaultChild as never as { integration: unknown }).integration,
          ),
        ).includes(`"${fallbackId}"`);
        expect(acknowledged['AwsSolutions-APIG4']).toMatch(
          servedByFallback ? /fallback function, which holds no data/ : /Bearer API key/,
        );
        expect(acknowledged['AwsSolutions-COG4']).toMatch(/not Cognito user pool users/);
      }
    });
  });
});
