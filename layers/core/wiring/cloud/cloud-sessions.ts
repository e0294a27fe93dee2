import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { JoseSessionTokens } from '../../adapters/crypto/jose-session-tokens';
import { DynamoDbGroupGrants } from '../../adapters/dynamodb/group-grants';
import { DynamoDbPasswordSessionCutoffs } from '../../adapters/dynamodb/password-session-cutoffs';
import { DynamoDbSessionRevocations } from '../../adapters/dynamodb/session-revocations';
import { DynamoDbUserRepository } from '../../adapters/dynamodb/user-repository';
import { parseCloudConfig } from '../../config';
import { ServiceUnavailableError } from '../../domain/errors';
import { traceAwsClient } from '../../observability/tracing';
import { systemClock } from '../../ports/clock.port';
import type { Dependencies } from '../../ports/dependencies.port';
import { cloudTable } from './cloud-table';

/** Seconds a caller is asked to wait when the signing secret cannot be read for now. */
const SECRET_RETRY_AFTER_SECONDS = 5;

/**
 * D12 in the cloud: session tokens signed with the stack's session
 * secret, read through Powertools Parameters when a session is first
 * issued or checked (never at init) and cached for
 * `SESSION_SECRET_MAX_AGE_SECONDS`; users, their groups' grants,
 * revoked sessions and password-session cutoffs in the table.
 * Every HTTP family checks sessions, so every one builds these.
 */
export function cloudSessions(): Pick<
  Dependencies,
  'users' | 'sessionTokens' | 'sessionRevocations' | 'passwordSessionCutoffs' | 'groupGrants'
> {
  const { client, tableName } = cloudTable();
  const signingKey = cloudSessionSigningKey();
  return {
    users: new DynamoDbUserRepository(client, tableName),
    sessionTokens: new JoseSessionTokens(signingKey),
    sessionRevocations: new DynamoDbSessionRevocations(client, tableName),
    passwordSessionCutoffs: new DynamoDbPasswordSessionCutoffs(client, tableName, systemClock),
    groupGrants: new DynamoDbGroupGrants(client, tableName),
  };
}

/**
 * The session signing secret, read through Powertools Parameters
 * when first needed (never at init) and cached for
 * `SESSION_SECRET_MAX_AGE_SECONDS`. P146 derives the connector sign-in's
 * state key from it.
 */
export function cloudSessionSigningKey(): () => Promise<Uint8Array> {
  const config = parseCloudConfig('sessions');
  const secrets = new SecretsProvider({
    awsSdkV3Client: traceAwsClient(new SecretsManagerClient({})),
  });
  return async (): Promise<Uint8Array> => {
    let value: unknown;
    try {
      value = await secrets.get(config.SESSION_SECRET_ARN, {
        maxAge: config.SESSION_SECRET_MAX_AGE_SECONDS,
      });
    } catch (error) {
      // Not the caller's fault, and nothing a session can do without: a 503 to retry.
      throw new ServiceUnavailableError(
        'Sessions cannot be checked for now',
        SECRET_RETRY_AFTER_SECONDS,
        { cause: error },
      );
    }
    const secret = typeof value === 'string' ? value : '';
    // At least 256 bits; the stack's secret has about 381 (64 base62 characters).
    if (secret.length < 43) throw new Error('The session signing secret is shorter than 256 bits');
    return new TextEncoder().encode(secret);
  };
}
