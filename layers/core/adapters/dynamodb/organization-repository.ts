import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { Organization } from '../../domain/organization';
import type {
  OrganizationChanges,
  OrganizationRepository,
} from '../../ports/organization-repository.port';
import { isConditionFailure } from './document-client';
import { keys, withoutStorageAttributes } from './table-design';
import { updateExpressionFor } from './update-expression';

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
    return Item ? toOrganization(Item) : null;
  }

  /**
   * One `UpdateItem` that sets only the given fields (settings as a whole:
   * the caller merged them), conditional on the organization existing.
   */
  async update(id: string, changes: OrganizationChanges): Promise<Organization | null> {
    try {
      const { Attributes } = await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.organization(id),
          ...updateExpressionFor({ ...changes }),
          ConditionExpression: 'attribute_exists(PK)',
          ReturnValues: 'ALL_NEW',
        }),
      );
      return Attributes ? toOrganization(Attributes) : null;
    } catch (error) {
      if (isConditionFailure(error)) return null;
      throw error;
    }
  }
}

function toOrganization(item: Record<string, unknown>): Organization {
  return withoutStorageAttributes(item) as unknown as Organization;
}
