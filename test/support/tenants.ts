import type { Environment } from '../../layers/core/domain/environments';
import type { Plan } from '../../layers/core/domain/plans';
import type { Scope } from '../../layers/core/domain/scopes';
import { createApiKey } from '../../layers/core/use-cases/api-keys/api-key-use-cases';
import { createOrganization } from '../../layers/core/use-cases/organizations/organization-use-cases';
import type { TestService } from './local-service';

/** An API key as the web application would hand it out: the value once, and its id. */
export interface TestKey {
  readonly key: string;
  readonly keyId: string;
  readonly orgId: string;
}

/**
 * Creates an API key for an organization through the same use case the admin
 * CLI uses (D11: keys are not created over the API). A `live` key is stored
 * like any other; this `test` deployment refuses it (D10).
 */
export async function createKey(
  service: TestService,
  orgId: string,
  options: {
    readonly scopes?: readonly Scope[];
    readonly environment?: Environment;
    readonly name?: string;
  } = {},
): Promise<TestKey> {
  const created = await createApiKey(service.runtime.dependencies, {
    orgId,
    name: options.name ?? 'e2e key',
    scopes: options.scopes ?? ['Admin'],
    environment: options.environment ?? 'test',
  });
  return { key: created.key, keyId: created.record.id, orgId };
}

/** Revokes a key the way the web application's key management does. */
export async function revokeKey(service: TestService, key: TestKey): Promise<void> {
  const revoked = await service.runtime.dependencies.apiKeys.revoke(key.orgId, key.keyId);
  if (!revoked) throw new Error(`key ${key.keyId} was not revoked`);
}

/** Another tenant: a new organization on `plan` (default enterprise) with one key. */
export async function createTenant(
  service: TestService,
  options: {
    readonly plan?: Plan;
    readonly scopes?: readonly Scope[];
    readonly name?: string;
  } = {},
): Promise<TestKey> {
  const organization = await createOrganization(service.runtime.dependencies, {
    name: options.name ?? 'e2e tenant',
    plan: options.plan ?? 'enterprise',
  });
  return createKey(service, organization.id, { scopes: options.scopes ?? ['Admin'] });
}
