import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Agent, AgentChanges } from '../../domain/agent';
import { type Page, type PageRequest, pageOf } from '../../domain/pagination';
import type { AgentRepository } from '../../ports/agent-repository.port';
import { OrgPartitionItems } from './org-partition-items';
import { keys } from './table-design';

export class DynamoDbAgentRepository implements AgentRepository {
  private readonly items: OrgPartitionItems<Agent>;

  constructor(client: DynamoDBDocumentClient, tableName: string) {
    this.items = new OrgPartitionItems<Agent>(client, tableName, 'agent', keys.agentPrefix);
  }

  create(orgId: string, agent: Agent): Promise<void> {
    return this.items.create(orgId, agent);
  }

  get(orgId: string, id: string): Promise<Agent | null> {
    return this.items.get(orgId, id);
  }

  async list(orgId: string, page: PageRequest): Promise<Page<Agent>> {
    return pageOf(await this.items.queryAll(orgId), page);
  }

  update(
    orgId: string,
    id: string,
    changes: AgentChanges,
    updatedAt: string,
  ): Promise<Agent | null> {
    return this.items.update(orgId, id, { ...changes, updated_at: updatedAt });
  }

  delete(orgId: string, id: string): Promise<boolean> {
    return this.items.delete(orgId, id);
  }

  async idsReferencing(orgId: string, dataSourceId: string): Promise<string[]> {
    const agents = await this.items.queryAll(orgId, {
      filterExpression: 'contains(data_source_ids, :ds)',
      projection: 'id',
      values: { ':ds': dataSourceId },
    });
    return agents.map((agent) => agent.id);
  }
}
