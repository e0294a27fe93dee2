import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { Agent, AgentChanges } from '../../domain/agent';
import { type Page, type PageRequest, pageOf } from '../../domain/pagination';
import type { AgentRepository } from '../../ports/agent-repository.port';
import { isConditionFailure } from './document-client';
import { queryAll } from './query-all';
import { keys, withoutStorageAttributes } from './table-design';
import { updateExpressionFor } from './update-expression';

const toAgent = (item: Record<string, unknown>) =>
  withoutStorageAttributes(item) as unknown as Agent;

export class DynamoDbAgentRepository implements AgentRepository {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async create(orgId: string, agent: Agent): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...keys.agent(orgId, agent.id), entity: 'agent', org_id: orgId, ...agent },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
  }

  async get(orgId: string, id: string): Promise<Agent | null> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: keys.agent(orgId, id),
        ConsistentRead: true,
      }),
    );
    return Item ? toAgent(Item) : null;
  }

  /** Newest first: ids are ULIDs, so the sort key orders by creation time. */
  async list(orgId: string, page: PageRequest): Promise<Page<Agent>> {
    const items = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.orgPartition(orgId), ':prefix': keys.agentPrefix },
      ScanIndexForward: false,
      ConsistentRead: true,
    });
    return pageOf(items.map(toAgent), page);
  }

  async update(
    orgId: string,
    id: string,
    changes: AgentChanges,
    updatedAt: string,
  ): Promise<Agent | null> {
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.agent(orgId, id),
          ...updateExpressionFor({ ...changes, updated_at: updatedAt }),
          ConditionExpression: 'attribute_exists(PK)',
          ReturnValues: 'ALL_NEW',
        }),
      );
      return Attributes ? toAgent(Attributes) : null;
    } catch (error) {
      if (isConditionFailure(error)) return null;
      throw error;
    }
  }

  async delete(orgId: string, id: string): Promise<boolean> {
    try {
      await this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: keys.agent(orgId, id),
          ConditionExpression: 'attribute_exists(PK)',
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async idsReferencing(orgId: string, dataSourceId: string): Promise<string[]> {
    const items = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      FilterExpression: 'contains(data_source_ids, :ds)',
      ProjectionExpression: 'id',
      ExpressionAttributeValues: {
        ':pk': keys.orgPartition(orgId),
        ':prefix': keys.agentPrefix,
        ':ds': dataSourceId,
      },
      ConsistentRead: true,
    });
    return items.map((item) => String(item.id));
  }
}
