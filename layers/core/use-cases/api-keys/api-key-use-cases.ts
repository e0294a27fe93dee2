import {
  API_KEY_PREFIX,
  apiKeyLast4,
  generateApiKey,
  hashApiKey,
  parseApiKey,
} from '../../domain/api-key';
import type { ApiKeyRecord } from '../../domain/api-key-record';
import type { Environment } from '../../domain/environments';
import { InvalidRequestError, NotFoundError, UnauthorizedError } from '../../domain/errors';
import { newId } from '../../domain/ids';
import type { ApiKeyPrincipal } from '../../domain/principal';
import type { Scope } from '../../domain/scopes';
import type { ApiKeyRepository } from '../../ports/api-key-repository.port';
import type { Clock } from '../../ports/clock.port';
import type { OrganizationRepository } from '../../ports/organization-repository.port';

export interface ApiKeyDependencies {
  readonly apiKeys: ApiKeyRepository;
  readonly organizations: Pick<OrganizationRepository, 'get'>;
  readonly clock: Clock;
}

export interface CreateApiKeyInput {
  readonly orgId: string;
  readonly name: string;
  readonly scopes: readonly Scope[];
  readonly environment: Environment;
  /** A well-formed key to register instead of a random one (`SVC_BOOTSTRAP_KEY`). */
  readonly presetKey?: string | undefined;
}

export interface CreatedApiKey {
  readonly record: ApiKeyRecord;
  /** The key itself: shown once, never stored. */
  readonly key: string;
}

export async function createApiKey(
  deps: ApiKeyDependencies,
  input: CreateApiKeyInput,
): Promise<CreatedApiKey> {
  if (input.scopes.length === 0) throw new InvalidRequestError('A key needs at least one scope');
  if (!(await deps.organizations.get(input.orgId))) {
    throw new NotFoundError(`No organization ${input.orgId}`);
  }
  let key = generateApiKey(input.environment);
  if (input.presetKey !== undefined) {
    const parsed = parseApiKey(input.presetKey);
    if (!parsed.ok || parsed.environment !== input.environment) {
      throw new InvalidRequestError(
        `The preset key must be a well-formed ${API_KEY_PREFIX[input.environment]}… key with a valid checksum`,
      );
    }
    key = input.presetKey;
  }
  const record: ApiKeyRecord = {
    id: newId('apiKey', deps.clock.now().getTime()),
    org_id: input.orgId,
    name: input.name,
    scopes: [...new Set(input.scopes)],
    environment: input.environment,
    last4: apiKeyLast4(key),
    created_at: deps.clock.now().toISOString(),
    last_used_at: null,
  };
  await deps.apiKeys.create(record, hashApiKey(key));
  return { record, key };
}

/**
 * An organization's administrator makes a key in the web application.
 * Keys of the other environment could never be used here, so the
 * environment is the deployment's, and naming the other one is a 400
 * rather than a key that fails at its first use.
 */
export async function createApiKeyForDeployment(
  deps: ApiKeyDependencies,
  deployment: Environment,
  input: Omit<CreateApiKeyInput, 'environment' | 'presetKey'> & {
    readonly environment?: Environment | undefined;
  },
): Promise<CreatedApiKey> {
  if (input.environment !== undefined && input.environment !== deployment) {
    throw new InvalidRequestError(
      `This is a ${deployment} deployment: it accepts only ${deployment} keys, so it makes only those`,
      { fields: [{ path: 'environment', message: `must be ${deployment} on this deployment` }] },
    );
  }
  return createApiKey(deps, {
    orgId: input.orgId,
    name: input.name,
    scopes: input.scopes,
    environment: deployment,
  });
}

/** The organization's keys, newest first (ids sort by creation time). */
export async function listApiKeys(
  deps: ApiKeyDependencies,
  orgId: string,
): Promise<ApiKeyRecord[]> {
  const records = await deps.apiKeys.listByOrganization(orgId);
  return records.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
}

/**
 * How fresh `last_used_at` is kept. A key used again within this is not
 * written again, so a busy key costs one small write a minute, not one per
 * request.
 */
export const KEY_USE_RESOLUTION_MS = 60_000;

export async function revokeApiKey(
  deps: ApiKeyDependencies,
  orgId: string,
  keyId: string,
): Promise<void> {
  if (!(await deps.apiKeys.revoke(orgId, keyId)))
    throw new NotFoundError(`No API key ${keyId} in ${orgId}`);
}

/**
 * Spec, Authentication: `Authorization: Bearer <key>`. A malformed key, a bad
 * checksum and a key of the other environment are refused before any lookup;
 * the message names the problem but never echoes the key.
 */
export async function authenticateApiKey(
  deps: {
    readonly apiKeys: Pick<ApiKeyRepository, 'findByHash' | 'recordUse'>;
    readonly clock: Clock;
  },
  authorization: string | undefined,
  deployment: Environment,
): Promise<ApiKeyPrincipal> {
  if (!authorization)
    throw new UnauthorizedError('Missing API key: send Authorization: Bearer <key>');
  const match = /^Bearer +(\S+) *$/i.exec(authorization);
  if (!match?.[1])
    throw new UnauthorizedError('Malformed Authorization header: expected Bearer <key>');
  const key = match[1];
  const parsed = parseApiKey(key);
  if (!parsed.ok) throw new UnauthorizedError('Invalid API key');
  if (parsed.environment !== deployment) {
    throw new UnauthorizedError(
      `A ${parsed.environment} key cannot be used on this ${deployment} deployment; use a ${API_KEY_PREFIX[deployment]}… key`,
    );
  }
  const keyHash = hashApiKey(key);
  const record = await deps.apiKeys.findByHash(keyHash);
  if (!record || record.environment !== deployment) throw new UnauthorizedError('Invalid API key');
  await noteKeyUse(deps, keyHash, record);
  return {
    kind: 'api_key',
    orgId: record.org_id,
    keyId: record.id,
    scopes: record.scopes,
    environment: record.environment,
  };
}

/**
 * D11 "last-used time": stamped when the key authenticates a request
 * (refused later by the allowlist, a scope or a limit or not, since it says
 * the key is in someone's hands), at most once per `KEY_USE_RESOLUTION_MS`.
 * The record just read says whether the stamp is fresh, so most requests
 * write nothing.
 */
async function noteKeyUse(
  deps: { readonly apiKeys: Pick<ApiKeyRepository, 'recordUse'>; readonly clock: Clock },
  keyHash: string,
  record: ApiKeyRecord,
): Promise<void> {
  const now = deps.clock.now().getTime();
  const staleBefore = new Date(now - KEY_USE_RESOLUTION_MS).toISOString();
  if (record.last_used_at !== null && record.last_used_at >= staleBefore) return;
  await deps.apiKeys.recordUse(keyHash, new Date(now).toISOString(), staleBefore);
}
