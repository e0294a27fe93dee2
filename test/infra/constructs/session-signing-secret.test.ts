import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as kms from 'aws-cdk-lib/aws-kms';
import { SessionSigningSecret } from '../../../lib/constructs/session-signing-secret';

function secretIn(length?: number) {
  const stack = new Stack(new App(), 'Secrets');
  const encryptionKey = new kms.Key(stack, 'Key', { enableKeyRotation: true });
  const secret = new SessionSigningSecret(stack, 'Session', { encryptionKey, length });
  return { stack, secret };
}

describe('Class: SessionSigningSecret', () => {
  it('generates 64 alphanumeric characters by default, retained on delete', () => {
    const { stack, secret } = secretIn();

    expect(secret.node.validate()).toEqual([]);
    Template.fromStack(stack).hasResource('AWS::SecretsManager::Secret', {
      DeletionPolicy: 'Retain',
      Properties: {
        GenerateSecretString: {
          PasswordLength: 64,
          ExcludePunctuation: true,
          IncludeSpace: false,
          RequireEachIncludedType: false,
        },
      },
    });
  });

  it('refuses a length under 256 bits', () => {
    const { secret } = secretIn(42);

    expect(secret.node.validate()).toEqual([expect.stringMatching(/from 43 \(256 bits\)/)]);
  });
});
