import type { KeyringNode } from '@aws-crypto/client-node';
import type { SecretSealer } from '../../ports/webhook-repository.port';

type EncryptionSdk = typeof import('@aws-crypto/client-node');

/** Where the data keys come from: the stack's KMS key, or a local master key. */
export type SealingKey =
  | { readonly kmsKeyArn: string }
  | {
      /** 32 bytes kept under SVC_DATA_DIR. */
      readonly localMasterKey: Buffer;
    };

/**
 * Envelope encryption with the AWS Encryption SDK — a KMS keyring in the
 * cloud, a raw AES-256 keyring with a local master key on one machine; the
 * message format is the same. The encryption context (organization, secret
 * id, purpose) is authenticated with the ciphertext and checked on opening,
 * so a sealed value moved to another row does not open.
 *
 * The SDK (about 330 KB bundled: bn.js, asn1.js, streams) is loaded at the
 * first seal or open, not at init: most webhook requests and cold
 * starts never need it. Deployed, it is bundled beside `index.js` and read
 * only then, so keep it behind `import`.
 */
export class EnvelopeSecretSealer implements SecretSealer {
  #client:
    | Promise<{
        readonly sdk: ReturnType<EncryptionSdk['buildClient']>;
        readonly keyring: KeyringNode;
      }>
    | undefined;

  constructor(private readonly key: SealingKey) {
    if ('localMasterKey' in key && key.localMasterKey.length !== 32) {
      throw new Error('The local master key must be 32 bytes');
    }
  }

  async seal(plaintext: string, context: Readonly<Record<string, string>>): Promise<string> {
    const { sdk, keyring } = await this.#load();
    const { result } = await sdk.encrypt(keyring, plaintext, {
      encryptionContext: { ...context },
    });
    return result.toString('base64');
  }

  async open(sealed: string, context: Readonly<Record<string, string>>): Promise<string> {
    const { sdk, keyring } = await this.#load();
    const { plaintext, messageHeader } = await sdk.decrypt(keyring, Buffer.from(sealed, 'base64'));
    for (const [name, value] of Object.entries(context)) {
      if (messageHeader.encryptionContext[name] !== value) {
        throw new Error(`Sealed secret does not belong here (encryption context ${name} differs)`);
      }
    }
    return plaintext.toString('utf8');
  }

  #load() {
    this.#client ??= import('@aws-crypto/client-node').then((esdk) => ({
      sdk: esdk.buildClient(esdk.CommitmentPolicy.REQUIRE_ENCRYPT_REQUIRE_DECRYPT),
      keyring: keyringOf(esdk, this.key),
    }));
    return this.#client;
  }
}

function keyringOf(esdk: EncryptionSdk, key: SealingKey): KeyringNode {
  if ('kmsKeyArn' in key) return new esdk.KmsKeyringNode({ generatorKeyId: key.kmsKeyArn });
  return new esdk.RawAesKeyringNode({
    keyNamespace: 'svc-local',
    keyName: 'master-key',
    unencryptedMasterKey: new Uint8Array(key.localMasterKey),
    wrappingSuite: esdk.RawAesWrappingSuiteIdentifier.AES256_GCM_IV12_TAG16_NO_PADDING,
  });
}
