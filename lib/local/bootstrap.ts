import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { hashApiKey } from '../../layers/core/domain/api-key';
import type { Organization } from '../../layers/core/domain/organization';
import { SCOPES } from '../../layers/core/domain/scopes';
import { normalizeEmail } from '../../layers/core/domain/user';
import type { Dependencies } from '../../layers/core/ports/dependencies.port';
import { createApiKey } from '../../layers/core/use-cases/api-keys/api-key-use-cases';
import { createOrganization } from '../../layers/core/use-cases/organizations/organization-use-cases';
import { createUser } from '../../layers/core/use-cases/users/user-use-cases';

const MARKER_KEY = { PK: 'SYSTEM', SK: 'BOOTSTRAP' } as const;

/** Why this start has a key to show (or `none`). */
export const BOOTSTRAP_KEY_REASONS = {
  /** The organization and its first Admin key were created now. */
  firstStart: 'first-start',
  /** An earlier start created a key it never showed (it failed before printing): revoked, and this one replaces it. */
  replacedUnshown: 'replaced-unshown',
  /** `SVC_BOOTSTRAP_KEY` was registered now. */
  preset: 'preset',
  none: 'none',
} as const;
export type BootstrapKeyReason = (typeof BOOTSTRAP_KEY_REASONS)[keyof typeof BOOTSTRAP_KEY_REASONS];

/** The first web administrator, when SVC_BOOTSTRAP_ADMIN_EMAIL asks for one. */
export interface BootstrapAdmin {
  readonly email: string;
  readonly userId: string;
  /** False when a user with that email already existed (it is left as it is). */
  readonly created: boolean;
}

export interface BootstrapResult {
  readonly organization: Organization;
  readonly admin: BootstrapAdmin | null;
  /** The Admin key, present only when this start created it (shown once). */
  readonly newKey: string | null;
  readonly firstStart: boolean;
  readonly reason: BootstrapKeyReason;
  /** Whether anyone can sign in yet; until then the console offers to create the administrator. */
  readonly hasUsers: boolean;
}

/**
 * On first start, an organization on the enterprise plan (so local work
 * is not throttled by a plan) and an Admin key for the `test` environment,
 * either random or `SVC_BOOTSTRAP_KEY`.
 *
 * Only the key's hash is stored, so a key that was never printed is lost for
 * good. The marker therefore records whether the key was shown
 * (`recordBootstrapKeyShown`, called once it is printed): a start that finds
 * an unshown key (the previous one failed after creating it, say on a busy
 * port) revokes it and makes a new one to show. Markers written before this
 * flag existed count as shown: their key was printed by that version.
 */
export async function bootstrap(
  deps: Dependencies,
  client: DynamoDBDocumentClient,
  tableName: string,
  presetKey: string | undefined,
  adminAccount?: { readonly email: string; readonly password: string },
): Promise<BootstrapResult> {
  const result = await bootstrapOrganization(deps, client, tableName, presetKey);
  const admin = adminAccount
    ? await bootstrapAdmin(deps, result.organization.id, adminAccount)
    : null;
  const { total } = await deps.users.list(result.organization.id, { limit: 1, offset: 0 });
  return { ...result, admin, hasUsers: total > 0 };
}

/**
 * `SVC_BOOTSTRAP_ADMIN_EMAIL` / `SVC_BOOTSTRAP_ADMIN_PASSWORD`: an active
 * administrator of the bootstrap organization with that password, made on
 * the first start that names them. Idempotent: a user with that email
 * is left as it is on later starts, its password included, so a password
 * changed since is never reset by a restart.
 */
async function bootstrapAdmin(
  deps: Dependencies,
  orgId: string,
  account: { readonly email: string; readonly password: string },
): Promise<BootstrapAdmin> {
  const [existing] = await deps.users.findByEmail(normalizeEmail(account.email), orgId);
  if (existing) return { email: existing.user.email, userId: existing.user.id, created: false };
  const { user } = await createUser(deps, orgId, {
    email: account.email,
    name: 'Administrator',
    role: 'admin',
    password: account.password,
  });
  return { email: user.email, userId: user.id, created: true };
}

async function bootstrapOrganization(
  deps: Dependencies,
  client: DynamoDBDocumentClient,
  tableName: string,
  presetKey: string | undefined,
): Promise<Omit<BootstrapResult, 'admin' | 'hasUsers'>> {
  const { Item: marker } = await client.send(
    new GetCommand({ TableName: tableName, Key: MARKER_KEY, ConsistentRead: true }),
  );
  const existing = marker ? await deps.organizations.get(String(marker.org_id)) : null;
  if (existing && marker) {
    const registered = presetKey ? await deps.apiKeys.findByHash(hashApiKey(presetKey)) : null;
    if (marker.key_shown === false) {
      const unshownKeyId = String(marker.key_id);
      const created = registered ? null : await adminKey(deps, existing.id, presetKey);
      const keyId = registered?.id ?? created?.record.id ?? unshownKeyId;
      // Nobody has seen the unshown key (a preset one is known to whoever set it): it goes.
      if (keyId !== unshownKeyId) await deps.apiKeys.revoke(existing.id, unshownKeyId);
      await putMarker(client, tableName, existing.id, keyId);
      return {
        organization: existing,
        newKey: presetKey ?? created?.key ?? null,
        firstStart: false,
        reason: presetKey ? 'preset' : 'replaced-unshown',
      };
    }
    if (presetKey && !registered) {
      const created = await adminKey(deps, existing.id, presetKey);
      return { organization: existing, newKey: created.key, firstStart: false, reason: 'preset' };
    }
    return { organization: existing, newKey: null, firstStart: false, reason: 'none' };
  }
  const organization = await createOrganization(deps, {
    name: 'Local organization',
    plan: 'enterprise',
  });
  const created = await adminKey(deps, organization.id, presetKey);
  await putMarker(client, tableName, organization.id, created.record.id);
  return { organization, newKey: created.key, firstStart: true, reason: 'first-start' };
}

/** The bootstrap key has been printed: later starts leave it alone. */
export async function recordBootstrapKeyShown(
  client: DynamoDBDocumentClient,
  tableName: string,
): Promise<void> {
  await client.send(
    new UpdateCommand({
      TableName: tableName,
      Key: MARKER_KEY,
      UpdateExpression: 'SET key_shown = :shown',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':shown': true },
    }),
  );
}

function putMarker(
  client: DynamoDBDocumentClient,
  tableName: string,
  orgId: string,
  keyId: string,
): Promise<unknown> {
  return client.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...MARKER_KEY, org_id: orgId, key_id: keyId, key_shown: false },
    }),
  );
}

function adminKey(deps: Dependencies, orgId: string, presetKey: string | undefined) {
  return createApiKey(deps, {
    orgId,
    name: 'Bootstrap admin key',
    scopes: [...SCOPES],
    environment: 'test',
    presetKey,
  });
}
