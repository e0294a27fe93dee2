import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Agent, AgentChanges } from '../../domain/agent';
import type { DomainEvent } from '../../domain/events';
import { type Page, type PageRequest, pageOf } from '../../domain/pagination';
import type { AgentRepository, ModelKeyUser, Versioned } from '../../ports/agent-repository.port';
import { OrgPartitionItems } from './org-partition-items';
import { keys } from './table-design';

export class DynamoDbAgentRepository implements AgentRepository {
  private readonly items: OrgPartitionItems<Agent>;

  constructor(client: DynamoDBDocumentClient, tableName: string) {
    // Agents stored before model keys existed answer with the service's provider.
    this.items = new OrgPartitionItems<Agent>(
      client,
      tableName,
      'agent',
      keys.agentPrefix,
      (agent) => ({ ...agent, model_key_id: agent.model_key_id ?? null }),
    );
  }

  create(orgId: string, agent: Agent, events: readonly DomainEvent[]): Promise<void> {
    return this.items.create(orgId, agent, events);
  }

  get(orgId: string, id: string): Promise<Agent | null> {
    return this.items.get(orgId, id);
  }

  getVersioned(orgId: string, id: string): Promise<Versioned<Agent> | null> {
    return this.items.getVersioned(orgId, id);
  }

  async list(orgId: string, page: PageRequest): Promise<Page<Agent>> {
    return pageOf(await this.items.queryAll(orgId), page);
  }

  update(
    orgId: string,
    id: string,
    changes: AgentChanges & { readonly updated_at: string },
    write: { readonly expectedVersion: number; readonly events: readonly DomainEvent[] },
  ): Promise<Agent | null> {
    return this.items.update(orgId, id, changes, write);
  }

  delete(orgId: string, id: string, events: readonly DomainEvent[]): Promise<boolean> {
    return this.items.delete(orgId, id, events);
  }

  async idsReferencing(orgId: string, dataSourceId: string): Promise<string[]> {
    const agents = await this.items.queryAll(orgId, {
      filterExpression: 'contains(data_source_ids, :ds)',
      projection: 'id',
      values: { ':ds': dataSourceId },
    });
    return agents.map((agent) => agent.id);
  }

  async modelKeyUsers(orgId: string, modelKeyId?: string): Promise<ModelKeyUser[]> {
    // An agent on the service's model has `model_key_id` null (or none, before D33).
    const agents = await this.items.queryAll(orgId, {
      filterExpression:
        modelKeyId === undefined ? 'attribute_type(model_key_id, :string)' : 'model_key_id = :key',
      projection: 'id, #name, model_key_id',
      names: { '#name': 'name' },
      values: modelKeyId === undefined ? { ':string': 'S' } : { ':key': modelKeyId },
    });
    return agents.map((agent) => ({
      id: agent.id,
      name: agent.name,
      model_key_id: agent.model_key_id ?? '',
    }));
  }
}
