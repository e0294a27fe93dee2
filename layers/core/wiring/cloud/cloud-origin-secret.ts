import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { parseCloudConfig } from '../../config';
import { traceAwsClient } from '../../observability/tracing';

/**
 * The shortest origin secret accepted: 128 random bits of base62. The
 * stack's has 64 characters (about 381 bits); anything shorter is a
 * mistake (a value put by hand), and matching it would trust a guessable
 * header.
 */
const MIN_SECRET_LENGTH = 22;

/**
 * P242 in the cloud: the console distribution's origin secret, read through
 * Powertools Parameters the first time a request carries
 * `X-Svc-Origin-Verify` (never at init, never for direct API callers) and
 * cached for `ORIGIN_VERIFY_MAX_AGE_SECONDS`, as the session secret is.
 * Without `ORIGIN_VERIFY_SECRET_ARN` nothing is trusted.
 */
export function cloudOriginSecret(): (() => Promise<string>) | undefined {
  const config = parseCloudConfig('originVerify');
  const secretArn = config.ORIGIN_VERIFY_SECRET_ARN;
  if (!secretArn) return undefined;
  const secrets = new SecretsProvider({
    awsSdkV3Client: traceAwsClient(new SecretsManagerClient({})),
  });
  return async (): Promise<string> => {
    const value = await secrets.get(secretArn, { maxAge: config.ORIGIN_VERIFY_MAX_AGE_SECONDS });
    const secret = typeof value === 'string' ? value : '';
    if (secret.length < MIN_SECRET_LENGTH) {
      throw new Error('The origin verify secret is shorter than 128 bits');
    }
    return secret;
  };
}
