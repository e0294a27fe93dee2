import { type DynamoDBDocumentClient, paginateScan } from '@aws-sdk/lib-dynamodb';
import type { Organization } from '../../domain/organization';
import { withoutStorageAttributes } from './table-design';

/**
 * Every organization in the table, for operators (`svc orgs list`). Nothing
 * in the request path needs this, so the table has no index for it: it is a
 * filtered Scan, paged, which reads the whole table. Fine for an operator's
 * occasional listing; never call it while serving a request.
 */
export class DynamoDbOrganizationDirectory {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async listAll(): Promise<Organization[]> {
    const organizations: Organization[] = [];
    const pages = paginateScan(
      { client: this.client },
      {
        TableName: this.tableName,
        FilterExpression: 'SK = :meta AND begins_with(PK, :org)',
        ExpressionAttributeValues: { ':meta': 'META', ':org': 'ORG#' },
      },
    );
    for await (const page of pages) {
      for (const item of page.Items ?? []) {
        organizations.push(withoutStorageAttributes(item) as unknown as Organization);
      }
    }
    // Ids are ULIDs: sorting them sorts by creation time.
    return organizations.sort((a, b) => a.id.localeCompare(b.id));
  }
}
