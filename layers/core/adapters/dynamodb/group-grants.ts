import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { GroupGrant } from '../../domain/group';
import type { Role } from '../../domain/user';
import type { GroupGrants } from '../../ports/group-repository.port';
import { keys } from './table-design';

/** Retries of keys DynamoDB left unprocessed (throttling) before the read fails. */
const UNPROCESSED_RETRIES = 5;

/**
 * The grants of a user's groups, read when a session is checked: one
 * strongly consistent `BatchGetItem` of at most 100 keys (GROUP_LIMITS), with
 * only the three attributes a grant needs. Kept apart from the group CRUD so
 * every HTTP family carries only this.
 */
export class DynamoDbGroupGrants implements GroupGrants {
  constructor(
    protected readonly client: DynamoDBDocumentClient,
    protected readonly tableName: string,
  ) {}

  async grants(orgId: string, ids: readonly string[]): Promise<GroupGrant[]> {
    if (ids.length === 0) return [];
    let pending: Record<string, unknown>[] = [...new Set(ids)].map((id) => keys.group(orgId, id));
    const found: GroupGrant[] = [];
    for (let attempt = 0; pending.length > 0; attempt += 1) {
      if (attempt > UNPROCESSED_RETRIES) throw new Error('Group grants could not be read');
      const { Responses, UnprocessedKeys } = await this.client.send(
        new BatchGetCommand({
          RequestItems: {
            [this.tableName]: {
              Keys: pending,
              ConsistentRead: true,
              ProjectionExpression: 'id, #role, agent_ids',
              ExpressionAttributeNames: { '#role': 'role' },
            },
          },
        }),
      );
      for (const item of Responses?.[this.tableName] ?? []) {
        found.push({
          id: String(item.id),
          role: item.role as Role,
          agent_ids: Array.isArray(item.agent_ids) ? item.agent_ids.map(String) : null,
        });
      }
      pending = UnprocessedKeys?.[this.tableName]?.Keys ?? [];
    }
    return found.sort((a, b) => a.id.localeCompare(b.id));
  }
}
