import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { createDocumentClient } from '../../layers/core/adapters/dynamodb/document-client';
import { systemClock } from '../../layers/core/ports/clock.port';
import type { UserRepository } from '../../layers/core/ports/user-repository.port';
import { adminDependencies } from './admin-dependencies';
import type { AdminDependencies, AdminTarget } from './admin-target';
import { describeAwsFailure } from './aws-errors';
import { NoCredentialsError, NoRegionError } from './cli-errors';
import { describeServiceStack } from './service-stack';

/**
 * Day one in the cloud: the deployed stack's table, reached with the
 * operator's own AWS credentials, through the same DynamoDB adapters the
 * functions use. Every later call is checked here, so each failure (no
 * credentials, no region, no stack, no permission) is one line.
 */
export async function connectToStack(options: {
  readonly stackName: string;
  readonly region?: string | undefined;
}): Promise<AdminTarget> {
  const region = options.region ?? (await configuredRegion());
  const credentials = defaultProvider();
  try {
    await credentials();
  } catch (error) {
    throw new NoCredentialsError(
      'No AWS credentials found: set AWS_PROFILE (or run aws configure / aws sso login), or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY',
      { cause: error },
    );
  }
  const stack = await describeServiceStack({ stackName: options.stackName, region, credentials });
  const client = createDocumentClient({ region });
  const { organizations, apiKeys, users, mailer, listOrganizations } = adminDependencies(
    client,
    stack.tableName,
  );
  const on = (action: string) => `dynamodb:${action} on table ${stack.tableName} (${region})`;
  // Each call names its DynamoDB action, so an AccessDenied says which permission is missing.
  const deps: AdminDependencies = {
    clock: systemClock,
    organizations: {
      create: (organization) => guard(organizations.create(organization), on('PutItem')),
      get: (id) => guard(organizations.get(id), on('GetItem')),
      update: (id, changes) => guard(organizations.update(id, changes), on('UpdateItem')),
    },
    apiKeys: {
      create: (record, hash) => guard(apiKeys.create(record, hash), on('PutItem')),
      findByHash: (hash) => guard(apiKeys.findByHash(hash), on('GetItem')),
      recordUse: (hash, at, staleBefore) =>
        guard(apiKeys.recordUse(hash, at, staleBefore), on('UpdateItem')),
      listByOrganization: (orgId) => guard(apiKeys.listByOrganization(orgId), on('Query')),
      revoke: (orgId, keyId) => guard(apiKeys.revoke(orgId, keyId), on('Query, DeleteItem')),
    },
    users: guardedUsers(users, on('GetItem, PutItem, Query, UpdateItem, DeleteItem')),
    mailer,
    listOrganizations: () => guard(listOrganizations(), on('Scan')),
  };
  return { deps, environment: stack.environment, close: async () => client.destroy() };
}

/** Every user repository call, each failure named with the DynamoDB actions users need. */
function guardedUsers(users: UserRepository, actions: string): UserRepository {
  return new Proxy(users, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => guard(Promise.resolve(value.apply(target, args)), actions);
    },
  });
}

async function guard<T>(call: Promise<T>, action: string): Promise<T> {
  try {
    return await call;
  } catch (error) {
    throw describeAwsFailure(error, action);
  }
}

/** The region the SDK would pick (AWS_REGION, then the profile); the SDK throws when there is none. */
async function configuredRegion(): Promise<string> {
  const probe = new CloudFormationClient({});
  try {
    return await probe.config.region();
  } catch (error) {
    throw new NoRegionError('No AWS region: pass --region, or set AWS_REGION or a profile region', {
      cause: error,
    });
  } finally {
    probe.destroy();
  }
}
