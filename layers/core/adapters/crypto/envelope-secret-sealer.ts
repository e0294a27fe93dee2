import {
  buildClient,
  CommitmentPolicy,
  type KeyringNode,
  KmsKeyringNode,
  RawAesKeyringNode,
  RawAesWrappingSuiteIdentifier,
} from '@aws-crypto/client-node';
import type { SecretSealer } from '../../ports/webhook-repository.port';

const { encrypt, decrypt } = buildClient(CommitmentPolicy.REQUIRE_ENCRYPT_REQUIRE_DECRYPT);

/**
 * D33: envelope encryption with the AWS Encryption SDK — a KMS keyring in the
 * cloud, a raw AES-256 keyring with a local master key on one machine; the
 * message format is the same. The encryption context (organization, secret
 * id, purpose) is authenticated with the ciphertext and checked on opening,
 * so a sealed value moved to another row does not open.
 */
export class EnvelopeSecretSealer implements SecretSealer {
  constructor(private readonly keyring: KeyringNode) {}

  async seal(plaintext: string, context: Readonly<Record<string, string>>): Promise<string> {
    const { result } = await encrypt(this.keyring, plaintext, {
      encryptionContext: { ...context },
    });
    return result.toString('base64');
  }

  async open(sealed: string, context: Readonly<Record<string, string>>): Promise<string> {
    const { plaintext, messageHeader } = await decrypt(this.keyring, Buffer.from(sealed, 'base64'));
    for (const [name, value] of Object.entries(context)) {
      if (messageHeader.encryptionContext[name] !== value) {
        throw new Error(`Sealed secret does not belong here (encryption context ${name} differs)`);
      }
    }
    return plaintext.toString('utf8');
  }
}

/** The cloud keyring: the stack's KMS key. */
export function kmsKeyring(keyArn: string): KeyringNode {
  return new KmsKeyringNode({ generatorKeyId: keyArn });
}

/** The one-machine keyring: a 32-byte master key kept under SVC_DATA_DIR. */
export function localKeyring(masterKey: Buffer): KeyringNode {
  if (masterKey.length !== 32) throw new Error('The local master key must be 32 bytes');
  return new RawAesKeyringNode({
    keyNamespace: 'svc-local',
    keyName: 'master-key',
    unencryptedMasterKey: new Uint8Array(masterKey),
    wrappingSuite: RawAesWrappingSuiteIdentifier.AES256_GCM_IV12_TAG16_NO_PADDING,
  });
}
