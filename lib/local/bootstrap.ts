import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { hashApiKey } from '../../layers/core/domain/api-key';
import type { Organization } from '../../layers/core/domain/organization';
import { SCOPES } from '../../layers/core/domain/scopes';
import type { Dependencies } from '../../layers/core/ports/dependencies.port';
import { createApiKey } from '../../layers/core/use-cases/api-keys/api-key-use-cases';
import { createOrganization } from '../../layers/core/use-cases/organizations/organization-use-cases';

const MARKER_KEY = { PK: 'SYSTEM', SK: 'BOOTSTRAP' } as const;

export interface BootstrapResult {
  readonly organization: Organization;
  /** The Admin key, present only when this start created it (shown once). */
  readonly newKey: string | null;
  readonly firstStart: boolean;
}

/**
 * D36: on first start, an organization on the enterprise plan (so local work
 * is not throttled by a plan) and an Admin key for the `test` environment,
 * either random or `SVC_BOOTSTRAP_KEY`. Later starts find the marker and
 * create nothing, except registering a newly given `SVC_BOOTSTRAP_KEY`.
 */
export async function bootstrap(
  deps: Dependencies,
  client: DynamoDBDocumentClient,
  tableName: string,
  presetKey: string | undefined,
): Promise<BootstrapResult> {
  const { Item: marker } = await client.send(
    new GetCommand({ TableName: tableName, Key: MARKER_KEY, ConsistentRead: true }),
  );
  const existing = marker ? await deps.organizations.get(String(marker.org_id)) : null;
  if (existing) {
    let newKey: string | null = null;
    if (presetKey && !(await deps.apiKeys.findByHash(hashApiKey(presetKey)))) {
      newKey = (await adminKey(deps, existing.id, presetKey)).key;
    }
    return { organization: existing, newKey, firstStart: false };
  }
  const organization = await createOrganization(deps, {
    name: 'Local organization',
    plan: 'enterprise',
  });
  const created = await adminKey(deps, organization.id, presetKey);
  await client.send(
    new PutCommand({
      TableName: tableName,
      Item: { ...MARKER_KEY, org_id: organization.id, key_id: created.record.id },
    }),
  );
  return { organization, newKey: created.key, firstStart: true };
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
