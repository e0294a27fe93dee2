import { type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Organization } from '../../domain/organization';
import type { OrganizationRepository } from '../../ports/organization-repository.port';
import { keys, withoutStorageAttributes } from './table-design';

export class DynamoDbOrganizationRepository implements OrganizationRepository {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async create(organization: Organization): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...keys.organization(organization.id), entity: 'organization', ...organization },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
  }

  async get(id: string): Promise<Organization | null> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: keys.organization(id),
        ConsistentRead: true,
      }),
    );
    return Item ? (withoutStorageAttributes(Item) as unknown as Organization) : null;
  }
}
