import {
  BatchWriteCommand,
  type DynamoDBDocumentClient,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type {
  Evaluation,
  EvaluationAsker,
  EvaluationItem,
  EvaluationQuestion,
  EvaluationTotals,
  QuestionResult,
} from '../../domain/evaluation';
import type { DomainEvent } from '../../domain/events';
import { type Page, type PageRequest, pageOf } from '../../domain/pagination';
import type { EvaluationRepository } from '../../ports/evaluation-repository.port';
import { isConditionFailure } from './document-client';
import { OrgPartitionItems } from './org-partition-items';
import { queryAll } from './query-all';
import { keys } from './table-design';

/** BatchWriteItem takes at most 25 requests a call. */
const BATCH_WRITE_MAX = 25;

/**
 * Evaluation runs (`EVAL#<id>`) and their questions (`EVALQ#<id>#<n>`, one
 * item each: 500 questions of 4,000 characters exceed one item's 400 KB),
 * in the organization's partition. A question's result is written into its
 * own item, once.
 */
export class DynamoDbEvaluationRepository implements EvaluationRepository {
  private readonly runs: OrgPartitionItems<Evaluation>;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {
    this.runs = new OrgPartitionItems<Evaluation>(
      client,
      tableName,
      'evaluation',
      keys.evaluationPrefix,
    );
  }

  async create(
    orgId: string,
    evaluation: Evaluation,
    asker: EvaluationAsker,
    questions: readonly EvaluationQuestion[],
  ): Promise<void> {
    const items = questions.map((question, index) => ({
      ...keys.evaluationQuestion(orgId, evaluation.id, index),
      entity: 'evaluation_question',
      org_id: orgId,
      index,
      ...question,
    }));
    await this.batchWrite(items.map((Item) => ({ PutRequest: { Item } })));
    await this.runs.create(orgId, evaluation, [], { asker });
  }

  get(orgId: string, id: string): Promise<Evaluation | null> {
    return this.runs.get(orgId, id);
  }

  async askerOf(orgId: string, id: string): Promise<EvaluationAsker | null> {
    const item = await this.runs.getItem(orgId, id);
    return (item?.asker as EvaluationAsker | undefined) ?? null;
  }

  async list(orgId: string, page: PageRequest): Promise<Page<Evaluation>> {
    // The list leaves out nothing big: totals are small and questions live apart.
    return pageOf(await this.runs.queryAll(orgId), page);
  }

  async items(orgId: string, id: string, page: PageRequest): Promise<EvaluationItem[]> {
    if (page.limit === 0) return [];
    const from = keys.evaluationQuestion(orgId, id, page.offset).SK;
    const to = keys.evaluationQuestion(orgId, id, page.offset + page.limit - 1).SK;
    const found = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': keys.orgPartition(orgId), ':from': from, ':to': to },
      ConsistentRead: true,
    });
    return found.map((item) => ({
      index: Number(item.index),
      question: String(item.question),
      expected_answer: (item.expected_answer as string | null | undefined) ?? null,
      expected_sources: (item.expected_sources as string[] | null | undefined) ?? null,
      source_interaction_id: (item.source_interaction_id as string | null | undefined) ?? null,
      result: (item.result as QuestionResult | undefined) ?? null,
    }));
  }

  markRunning(orgId: string, id: string, at: string): Promise<Evaluation | null> {
    return this.runs.updateIf(orgId, id, {
      expression: 'SET #status = :running, started_at = :at',
      condition: '#status = :queued',
      names: { '#status': 'status' },
      values: { ':running': 'running', ':queued': 'queued', ':at': at },
    });
  }

  async recordResult(
    orgId: string,
    id: string,
    index: number,
    result: QuestionResult,
    completed: number,
  ): Promise<boolean> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.evaluationQuestion(orgId, id, index),
          UpdateExpression: 'SET #result = :result',
          ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(#result)',
          ExpressionAttributeNames: { '#result': 'result' },
          ExpressionAttributeValues: { ':result': result },
        }),
      );
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
    // Progress only moves forward: a redelivery that re-counts never lowers it.
    await this.runs.updateIf(orgId, id, {
      expression: 'SET completed_count = :completed',
      condition: 'completed_count < :completed',
      values: { ':completed': completed },
    });
    return true;
  }

  finish(
    orgId: string,
    id: string,
    end: {
      readonly status: 'completed' | 'failed';
      readonly totals: EvaluationTotals;
      readonly error: Evaluation['error'];
      /** Questions with a result. */
      readonly completed: number;
      readonly at: string;
      readonly events: readonly DomainEvent[];
    },
  ): Promise<Evaluation | null> {
    return this.runs.updateIf(orgId, id, {
      expression:
        'SET #status = :status, totals = :totals, #error = :error, completed_at = :at, completed_count = :completed',
      condition: '#status IN (:queued, :running)',
      names: { '#status': 'status', '#error': 'error' },
      values: {
        ':status': end.status,
        ':totals': end.totals,
        ':error': end.error,
        ':at': end.at,
        ':completed': end.completed,
        ':queued': 'queued',
        ':running': 'running',
      },
      events: end.events,
    });
  }

  async discard(orgId: string, id: string): Promise<void> {
    await this.runs.delete(orgId, id);
    const questions = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ProjectionExpression: 'PK, SK',
      ExpressionAttributeValues: {
        ':pk': keys.orgPartition(orgId),
        ':prefix': keys.evaluationQuestionPrefix(id),
      },
    });
    await this.batchWrite(
      questions.map((item) => ({ DeleteRequest: { Key: { PK: item.PK, SK: item.SK } } })),
    );
  }

  private async batchWrite(all: readonly Record<string, unknown>[]): Promise<void> {
    for (let start = 0; start < all.length; start += BATCH_WRITE_MAX) {
      let requests = all.slice(start, start + BATCH_WRITE_MAX);
      // Unprocessed requests (throttling) are sent again until none are left.
      while (requests.length > 0) {
        const { UnprocessedItems } = await this.client.send(
          new BatchWriteCommand({ RequestItems: { [this.tableName]: [...requests] } }),
        );
        requests = (UnprocessedItems?.[this.tableName] ?? []) as Record<string, unknown>[];
      }
    }
  }
}
