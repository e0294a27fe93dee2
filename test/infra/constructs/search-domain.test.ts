import { App, type CfnElement, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import { AwsSolutionsChecks } from 'cdk-nag';
import { SearchDomain, type SearchDomainProps } from '../../../lib/constructs/search-domain';

function domainIn(props: Partial<SearchDomainProps> = {}) {
  const stack = new Stack(new App(), 'Search');
  const encryptionKey = new kms.Key(stack, 'Key', { enableKeyRotation: true });
  const domain = new SearchDomain(stack, 'Domain', {
    domainName: 'aqs-test',
    encryptionKey,
    ...props,
  });
  return { stack, domain };
}

describe('Class: SearchDomain', () => {
  it('creates a single-node domain with defaults', () => {
    const { stack, domain } = domainIn();

    expect(domain.node.validate()).toEqual([]);
    Template.fromStack(stack).hasResourceProperties('AWS::OpenSearchService::Domain', {
      DomainName: 'aqs-test',
      ClusterConfig: { InstanceType: 't3.small.search', InstanceCount: 1 },
      EBSOptions: { EBSEnabled: true, VolumeType: 'gp3', VolumeSize: 10 },
    });
  });

  it.each([
    [{ instanceCount: 3, availabilityZoneCount: 2 }, /multiple of availabilityZoneCount/],
    [{ masterCount: 2 }, /masterCount must be 0, 3 or 5/],
    [{ instanceType: 't2.small.search' }, /does not support encryption at rest/],
    [{ instanceType: 'r6g.large' }, /instanceType must look like t3.small.search/],
    [{ availabilityZoneCount: 4, instanceCount: 4 }, /availabilityZoneCount must be 1, 2 or 3/],
    [{ volumeSizeGiB: 5 }, /volumeSizeGiB must be a whole number, at least 10/],
    [{ domainName: 'Search_Domain' }, /domainName must be 3–28 characters/],
  ])('refuses %j at synth time', (props, message) => {
    const { domain } = domainIn(props);

    expect(domain.node.validate()).toEqual([expect.stringMatching(message)]);
  });

  it('names a granted role in the access policy and lets it call the data plane', () => {
    // Prepare
    const { stack, domain } = domainIn();
    const role = new iam.Role(stack, 'Reader', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
    });

    // Act
    domain.grantReadWrite(role);

    // Assess
    const template = Template.fromStack(stack);
    const [resource] = Object.values(template.findResources('AWS::OpenSearchService::Domain'));
    expect(resource?.Properties.AccessPolicies.Statement).toEqual([
      expect.objectContaining({
        Effect: 'Allow',
        Principal: {
          AWS: { 'Fn::GetAtt': [stack.getLogicalId(role.node.defaultChild as CfnElement), 'Arn'] },
        },
        Action: expect.arrayContaining(['es:ESHttpGet', 'es:ESHttpPut']),
      }),
    ]);
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Action: Match.arrayWith(['es:ESHttpGet', 'es:ESHttpPost']) }),
        ]),
      },
    });
  });

  it('names a role once however often it is granted, and acknowledges only its own paths on it', () => {
    // Prepare
    const { stack, domain } = domainIn();
    const role = new iam.Role(stack, 'Reader', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
    });
    const other = new iam.Role(stack, 'Other', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
    });
    other.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['es:ESHttpGet'],
        resources: ['arn:aws:es:eu-west-1:123456789012:domain/another/*'],
      }),
    );

    // Act
    domain.grantReadWrite(role);
    domain.grantReadWrite(role);

    // Assess
    const [resource] = Object.values(
      Template.fromStack(stack).findResources('AWS::OpenSearchService::Domain'),
    );
    expect(resource?.Properties.AccessPolicies.Statement[0].Principal.AWS).toEqual({
      'Fn::GetAtt': [stack.getLogicalId(role.node.defaultChild as CfnElement), 'Arn'],
    });
    const iam5 = new AwsSolutionsChecks()
      .validateScope(stack)
      .violations.filter((violation) => violation.ruleName.startsWith('AwsSolutions-IAM5'))
      .map((violation) => [
        violation.ruleName,
        violation.violatingResources.map((r) => r.constructPath),
      ]);
    // The granted role's wildcard is acknowledged; another domain's is not.
    expect(iam5).toEqual([
      [
        'AwsSolutions-IAM5[Resource::arn:aws:es:eu-west-1:123456789012:domain/another/*]',
        ['Search/Other/DefaultPolicy/Resource'],
      ],
    ]);
  });
});
