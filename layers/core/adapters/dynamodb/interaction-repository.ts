import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { encodeTime } from 'ulid';
import type { DomainEvent } from '../../domain/events';
import { type Feedback, INTERACTION_LIMITS, type Interaction } from '../../domain/interaction';
import { type Page, type PageRequest, pageOf } from '../../domain/pagination';
import type { ConversationTurn } from '../../ports/answerer.port';
import type {
  InteractionFilter,
  InteractionRepository,
  SessionHistory,
  SessionTurns,
} from '../../ports/interaction-repository.port';
import { isConditionFailure } from './document-client';
import { OrgPartitionItems } from './org-partition-items';
import { queryAll } from './query-all';
import { keys, withoutStorageAttributes } from './table-design';

const PREFIX = 'INT#';

/** The sort-key bound for a time: interaction ids are ULIDs, whose first 10 characters encode it. */
const timeBound = (at: Date) => `${PREFIX}int_${encodeTime(at.getTime(), 10).toLowerCase()}`;

/**
 * Interactions in their organization's partition. A date range is a sort-key
 * range (ids are time-ordered ULIDs), so listing a day reads that day only;
 * agent and feedback filters apply within it.
 */
export class DynamoDbInteractionRepository implements InteractionRepository {
  private readonly items: OrgPartitionItems<Interaction>;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {
    this.items = new OrgPartitionItems<Interaction>(client, tableName, 'interaction', PREFIX);
  }

  create(orgId: string, interaction: Interaction, events: readonly DomainEvent[]): Promise<void> {
    return this.items.create(orgId, interaction, events);
  }

  async get(orgId: string, id: string): Promise<Interaction | null> {
    const found = await this.items.get(orgId, id);
    return found && withCurrentFields(found);
  }

  async list(
    orgId: string,
    filter: InteractionFilter,
    page: PageRequest,
  ): Promise<Page<Interaction>> {
    const conditions: string[] = ['attribute_not_exists(deleted_at)'];
    const values: Record<string, unknown> = {};
    const names: Record<string, string> = {};
    if (filter.agentId) {
      conditions.push('agent_id = :agent');
      values[':agent'] = filter.agentId;
    }
    if (filter.feedback === 'none') {
      conditions.push('feedback = :none');
      values[':none'] = null;
    } else if (filter.feedback) {
      conditions.push('feedback = :feedback');
      values[':feedback'] = filter.feedback;
    }
    if (filter.sessionId) {
      conditions.push('session_id = :session');
      values[':session'] = filter.sessionId;
    }
    if (filter.askedBy?.kind === 'user') {
      conditions.push('user_id = :asker');
      values[':asker'] = filter.askedBy.userId;
    } else if (filter.askedBy?.kind === 'key') {
      conditions.push('key_id = :asker');
      values[':asker'] = filter.askedBy.keyId;
    }
    const items = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
      FilterExpression: conditions.join(' AND '),
      ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
      ExpressionAttributeValues: {
        ':pk': keys.orgPartition(orgId),
        ':from': filter.from ? timeBound(filter.from) : PREFIX,
        // The exclusive end: everything before the first id of `to`.
        ':to': filter.to ? timeBound(filter.to) : `${PREFIX}~`,
        ...values,
      },
      ScanIndexForward: false,
      ConsistentRead: true,
    });
    return pageOf(
      items.map((item) =>
        withCurrentFields(withoutStorageAttributes(item) as unknown as Interaction),
      ),
      page,
    );
  }

  async setFeedback(
    orgId: string,
    id: string,
    change: {
      readonly expectedFeedback: Feedback | null;
      readonly feedback: Feedback;
      readonly comment: string | null;
      readonly events: readonly DomainEvent[];
    },
  ): Promise<Interaction | null> {
    const updated = await this.items.updateIf(orgId, id, {
      expression: 'SET feedback = :feedback, feedback_comment = :comment',
      condition: 'feedback = :expected',
      values: {
        ':feedback': change.feedback,
        ':comment': change.comment,
        ':expected': change.expectedFeedback,
      },
      events: change.events,
    });
    return updated && withCurrentFields(updated);
  }
}

/**
 * Interactions stored before some fields existed read as they were then:
 * P214, sources without `rank` and `score` as their order and their cosine,
 * which is how they were listed; sources without `quoted_ranges` as quoting
 * nothing known, and an answer that was never grounded with a null groundedness.
 */
function withCurrentFields(interaction: Interaction): Interaction {
  const current =
    interaction.groundedness !== undefined &&
    interaction.sources.every(
      (source) => source.rank !== undefined && source.quoted_ranges !== undefined,
    );
  if (current) return interaction;
  return {
    ...interaction,
    groundedness: interaction.groundedness ?? null,
    sources: interaction.sources.map((source, index) => ({
      ...source,
      rank: source.rank ?? index + 1,
      score: source.score ?? source.similarity_score,
      quoted_ranges: source.quoted_ranges ?? [],
    })),
  };
}

/** How many turns a session keeps: the prompt uses the last 10. */
const KEPT_TURNS = INTERACTION_LIMITS.historyTurns;

/** One item per session holding its last turns; appends are conditional on the turn count read. */
export class DynamoDbSessionHistory implements SessionHistory {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  private key(orgId: string, sessionId: string) {
    return { PK: keys.orgPartition(orgId), SK: `SESS#${sessionId}` };
  }

  async turns(orgId: string, sessionId: string): Promise<SessionTurns> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: this.key(orgId, sessionId),
        ConsistentRead: true,
      }),
    );
    return {
      turns: (Item?.turns as ConversationTurn[] | undefined) ?? [],
      startedBy: typeof Item?.started_by === 'string' ? Item.started_by : null,
    };
  }

  async append(
    orgId: string,
    sessionId: string,
    turn: ConversationTurn,
    at: string,
    startedBy: string,
  ): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const { Item } = await this.client.send(
        new GetCommand({
          TableName: this.tableName,
          Key: this.key(orgId, sessionId),
          ConsistentRead: true,
        }),
      );
      const previous = (Item?.turns as ConversationTurn[] | undefined) ?? [];
      const version = Number(Item?.item_version ?? 0);
      try {
        await this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: this.key(orgId, sessionId),
            UpdateExpression:
              'SET turns = :turns, updated_at = :at, item_version = :next, org_id = :org, started_by = if_not_exists(started_by, :by)',
            ConditionExpression: 'attribute_not_exists(item_version) OR item_version = :version',
            ExpressionAttributeValues: {
              ':turns': [...previous, turn].slice(-KEPT_TURNS),
              ':at': at,
              ':next': version + 1,
              ':version': version,
              ':org': orgId,
              ':by': startedBy,
            },
          }),
        );
        return;
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
    }
  }
}
