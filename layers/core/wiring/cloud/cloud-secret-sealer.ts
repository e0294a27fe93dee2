import { EnvelopeSecretSealer } from '../../adapters/crypto/envelope-secret-sealer';
import { parseCloudConfig } from '../../config';
import type { SecretSealer } from '../../ports/webhook-repository.port';

/** Envelope encryption under the stack's secrets key (KMS keyring). */
export function cloudSecretSealer(): SecretSealer {
  return new EnvelopeSecretSealer({ kmsKeyArn: parseCloudConfig('secretsKey').SECRETS_KEY_ARN });
}
