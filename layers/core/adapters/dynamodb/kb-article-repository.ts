import { gunzipSync, gzipSync } from 'node:zlib';
import {
  BatchWriteCommand,
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
} from '@aws-sdk/lib-dynamodb';
import { InvalidRequestError } from '../../domain/errors';
import type {
  KbArticle,
  KbArticleSummary,
  KbArticleVersion,
  KbArticleVersionSummary,
} from '../../domain/kb-article';
import type { KbArticleFilter, KbArticleRepository } from '../../ports/kb-article-repository.port';
import { isConditionFailure } from './document-client';
import { queryAll } from './query-all';
import { keys } from './table-design';

/**
 * Content is stored gzip-compressed (`content_gz`), since the input limits'
 * 200,000 characters can take 600 KB as UTF-8 and an item holds 400 KB.
 * Markdown shrinks to a fraction; content that stays above this once
 * compressed (only near-random text) is refused, naming the field.
 */
const MAX_STORED_CONTENT_BYTES = 350_000;
/** BatchWriteItem takes at most 25 requests a call. */
const BATCH_WRITE_MAX = 25;
/** What lists read: everything but the content. */
const SUMMARY_ATTRIBUTES = [
  'id',
  'article_id',
  'title',
  'tags',
  'status',
  'version',
  'data_source_id',
  'created_at',
  'updated_at',
  'content_length',
];

/** Lists read the summary attributes only (never the content), as names safe from reserved words. */
const SUMMARY_PROJECTION = {
  ProjectionExpression: SUMMARY_ATTRIBUTES.map((_, i) => `#a${i}`).join(', '),
  names: Object.fromEntries(SUMMARY_ATTRIBUTES.map((name, i) => [`#a${i}`, name])),
} as const;

function compressed(content: string): Uint8Array {
  const bytes = gzipSync(Buffer.from(content, 'utf8'));
  if (bytes.length > MAX_STORED_CONTENT_BYTES) {
    throw new InvalidRequestError(
      `content is too large to store: ${bytes.length} bytes once compressed, at most ${MAX_STORED_CONTENT_BYTES}`,
      { fields: [{ path: 'content', message: 'too large to store once compressed' }] },
    );
  }
  return bytes;
}

function decompressed(value: unknown): string {
  return value instanceof Uint8Array ? gunzipSync(value).toString('utf8') : '';
}

function articleOf(item: Record<string, unknown>): KbArticle {
  return {
    id: String(item.id),
    title: String(item.title),
    content: decompressed(item.content_gz),
    tags: (item.tags as string[] | undefined) ?? [],
    status: item.status as KbArticle['status'],
    version: Number(item.version),
    data_source_id: String(item.data_source_id),
    created_at: String(item.created_at),
    updated_at: String(item.updated_at),
  };
}

function versionOf(item: Record<string, unknown>): KbArticleVersion {
  return {
    article_id: String(item.article_id),
    version: Number(item.version),
    title: String(item.title),
    content: decompressed(item.content_gz),
    tags: (item.tags as string[] | undefined) ?? [],
    status: item.status as KbArticleVersion['status'],
    created_at: String(item.created_at),
  };
}

/**
 * Articles under their organization's partition: `KB#<id>` holds the latest
 * version, `KBV#<id>#<n, zero-padded>` each recorded version, so an
 * article's history is one query in version order.
 */
export class DynamoDbKbArticleRepository implements KbArticleRepository {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  private articleItem(orgId: string, article: KbArticle): Record<string, unknown> {
    const { content, ...fields } = article;
    return {
      ...keys.kbArticle(orgId, article.id),
      entity: 'kb_article',
      org_id: orgId,
      ...fields,
      tags: [...article.tags],
      content_gz: compressed(content),
      content_length: content.length,
    };
  }

  async create(orgId: string, article: KbArticle): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: this.articleItem(orgId, article),
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
  }

  async get(orgId: string, id: string): Promise<KbArticle | null> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: keys.kbArticle(orgId, id),
        ConsistentRead: true,
      }),
    );
    return Item ? articleOf(Item) : null;
  }

  async list(orgId: string, filter: KbArticleFilter): Promise<KbArticleSummary[]> {
    // A tag is one element of the `tags` list, matched whole by `contains`.
    const conditions = [
      ...(filter.status ? ['#status = :status'] : []),
      ...(filter.tag ? ['contains(#tags, :tag)'] : []),
    ];
    const items = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ...(conditions.length > 0 ? { FilterExpression: conditions.join(' AND ') } : {}),
      ProjectionExpression: SUMMARY_PROJECTION.ProjectionExpression,
      ExpressionAttributeNames: {
        ...SUMMARY_PROJECTION.names,
        ...(filter.status ? { '#status': 'status' } : {}),
        ...(filter.tag ? { '#tags': 'tags' } : {}),
      },
      ExpressionAttributeValues: {
        ':pk': keys.orgPartition(orgId),
        ':prefix': keys.kbArticlePrefix,
        ...(filter.status ? { ':status': filter.status } : {}),
        ...(filter.tag ? { ':tag': filter.tag } : {}),
      },
      // Newest first (ids are ULIDs).
      ScanIndexForward: false,
      ConsistentRead: true,
    });
    return items.map((item) => ({
      id: String(item.id),
      title: String(item.title),
      tags: (item.tags as string[] | undefined) ?? [],
      status: item.status as KbArticle['status'],
      version: Number(item.version),
      data_source_id: String(item.data_source_id),
      created_at: String(item.created_at),
      updated_at: String(item.updated_at),
      content_length: Number(item.content_length ?? 0),
    }));
  }

  async replace(orgId: string, next: KbArticle, previousVersion: number): Promise<boolean> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: this.articleItem(orgId, next),
          // `version` is a reserved word in expressions.
          ConditionExpression: 'attribute_exists(PK) AND #version = :previous',
          ExpressionAttributeNames: { '#version': 'version' },
          ExpressionAttributeValues: { ':previous': previousVersion },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async putVersion(orgId: string, version: KbArticleVersion): Promise<void> {
    const { content, ...fields } = version;
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...keys.kbVersion(orgId, version.article_id, version.version),
          entity: 'kb_article_version',
          org_id: orgId,
          ...fields,
          tags: [...version.tags],
          content_gz: compressed(content),
          content_length: content.length,
        },
      }),
    );
  }

  async getVersion(
    orgId: string,
    articleId: string,
    version: number,
  ): Promise<KbArticleVersion | null> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: keys.kbVersion(orgId, articleId, version),
        ConsistentRead: true,
      }),
    );
    return Item ? versionOf(Item) : null;
  }

  async listVersions(orgId: string, articleId: string): Promise<KbArticleVersionSummary[]> {
    const items = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ProjectionExpression: SUMMARY_PROJECTION.ProjectionExpression,
      ExpressionAttributeNames: SUMMARY_PROJECTION.names,
      ExpressionAttributeValues: {
        ':pk': keys.orgPartition(orgId),
        ':prefix': keys.kbVersionPrefix(articleId),
      },
      ScanIndexForward: false,
      ConsistentRead: true,
    });
    return items.map((item) => ({
      article_id: String(item.article_id),
      version: Number(item.version),
      title: String(item.title),
      tags: (item.tags as string[] | undefined) ?? [],
      status: item.status as KbArticleVersion['status'],
      created_at: String(item.created_at),
      content_length: Number(item.content_length ?? 0),
    }));
  }

  async delete(orgId: string, id: string): Promise<boolean> {
    try {
      await this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: keys.kbArticle(orgId, id),
          ConditionExpression: 'attribute_exists(PK)',
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async deleteVersions(orgId: string, articleId: string): Promise<void> {
    const items = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ProjectionExpression: 'PK, SK',
      ExpressionAttributeValues: {
        ':pk': keys.orgPartition(orgId),
        ':prefix': keys.kbVersionPrefix(articleId),
      },
    });
    for (let start = 0; start < items.length; start += BATCH_WRITE_MAX) {
      let requests: Record<string, unknown>[] = items
        .slice(start, start + BATCH_WRITE_MAX)
        .map((item) => ({ DeleteRequest: { Key: { PK: item.PK, SK: item.SK } } }));
      // Unprocessed requests (throttling) are sent again until none are left.
      while (requests.length > 0) {
        const { UnprocessedItems } = await this.client.send(
          new BatchWriteCommand({ RequestItems: { [this.tableName]: requests } }),
        );
        requests = (UnprocessedItems?.[this.tableName] ?? []) as Record<string, unknown>[];
      }
    }
  }
}
