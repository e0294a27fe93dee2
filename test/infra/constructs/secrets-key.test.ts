import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import { SecretsKey } from '../../../lib/constructs/secrets-key';

describe('Class: SecretsKey', () => {
  it('is a rotating key, retained by default, granted per purpose (D33)', () => {
    const stack = new Stack(new App(), 'Keys');
    const secrets = new SecretsKey(stack, 'Secrets');
    const sealer = new iam.Role(stack, 'Sealer', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
    });
    const opener = new iam.Role(stack, 'Opener', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
    });

    secrets.grantSealAndOpen(sealer, 'webhook-signing');
    secrets.grantOpen(opener, 'webhook-signing');

    const template = Template.fromStack(stack);
    template.hasResource('AWS::KMS::Key', {
      DeletionPolicy: 'Retain',
      Properties: { EnableKeyRotation: true, PendingWindowInDays: 30 },
    });
    const keyArn = {
      'Fn::GetAtt': [stack.getLogicalId(secrets.key.node.defaultChild as never), 'Arn'],
    };
    const condition = { StringEquals: { 'kms:EncryptionContext:purpose': 'webhook-signing' } };
    template.hasResourceProperties('AWS::IAM::Policy', {
      Roles: [{ Ref: stack.getLogicalId(sealer.node.defaultChild as never) }],
      PolicyDocument: {
        Statement: [
          {
            Action: ['kms:GenerateDataKey', 'kms:Decrypt'],
            Effect: 'Allow',
            Resource: keyArn,
            Condition: condition,
          },
        ],
      },
    });
    template.hasResourceProperties('AWS::IAM::Policy', {
      Roles: [{ Ref: stack.getLogicalId(opener.node.defaultChild as never) }],
      PolicyDocument: {
        Statement: [
          { Action: 'kms:Decrypt', Effect: 'Allow', Resource: keyArn, Condition: condition },
        ],
      },
    });
  });
});
