import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { usageDay } from '../../domain/usage-day';
import type { DailyCaps, DailyCount, DailyUsage } from '../../ports/rate-limiter.port';
import { isConditionFailure } from './document-client';
import { keys } from './table-design';

/** A day's counters stay a day after the day ends: late settlements still find them. */
const KEEP_AFTER_DAY_S = 86_400;

/** A refusal read back shows room again only if a refund raced it; try again at most this often. */
const MAX_ATTEMPTS = 3;

interface DayItem {
  readonly requests: number;
  readonly tokens: number;
}

/**
 * requests/day and tokens/day: one item per organization and
 * UTC day holding `requests` and `tokens`. A request is counted with one
 * `UpdateItem` — `ADD requests 1`, conditional on both caps — so
 * simultaneous requests can never count past a cap, and a request refused
 * for tokens costs no refund. Answers add their tokens with an unconditional
 * `ADD`: an answer already running is never cut off.
 */
export class DynamoDbDailyUsage implements DailyUsage {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async countRequest(orgId: string, caps: DailyCaps, now: number): Promise<DailyCount> {
    const day = usageDay(now);
    const conditions: string[] = [];
    const values: Record<string, number> = {
      ':one': 1,
      ':exp': day.endsAt / 1000 + KEEP_AFTER_DAY_S,
    };
    if (caps.requestsPerDay !== null) {
      conditions.push('(attribute_not_exists(requests) OR requests < :requests)');
      values[':requests'] = caps.requestsPerDay;
    }
    if (caps.tokensPerDay !== null) {
      conditions.push('(attribute_not_exists(tokens) OR tokens < :tokens)');
      values[':tokens'] = caps.tokensPerDay;
    }
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
      try {
        const { Attributes } = await this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: keys.planDay(orgId, day.date),
            UpdateExpression: 'ADD requests :one SET expires_at = :exp',
            ...(conditions.length > 0 ? { ConditionExpression: conditions.join(' AND ') } : {}),
            ExpressionAttributeValues: values,
            ReturnValues: 'ALL_NEW',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        return {
          allowed: true,
          requests: Number(Attributes?.requests ?? 0),
          tokens: Number(Attributes?.tokens ?? 0),
        };
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        const item = failedItem(error) ?? (await this.read(orgId, day.date));
        if (caps.requestsPerDay !== null && item.requests >= caps.requestsPerDay) {
          return { allowed: false, exceeded: 'requests', limit: caps.requestsPerDay };
        }
        if (caps.tokensPerDay !== null && item.tokens >= caps.tokensPerDay) {
          return { allowed: false, exceeded: 'tokens', limit: caps.tokensPerDay };
        }
        // A refund made room between the refusal and the read: count again.
      }
    }
    // Tokens only grow, so only refunded requests can have made room each time: the requests
    // cap is set, and the day is as good as full.
    return { allowed: false, exceeded: 'requests', limit: caps.requestsPerDay ?? 0 };
  }

  async refundRequest(orgId: string, at: number): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.planDay(orgId, usageDay(at).date),
          UpdateExpression: 'ADD requests :minusOne',
          ConditionExpression: 'requests > :zero',
          ExpressionAttributeValues: { ':minusOne': -1, ':zero': 0 },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  async addTokens(orgId: string, tokens: number, at: number): Promise<void> {
    if (tokens <= 0) return;
    const day = usageDay(at);
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.planDay(orgId, day.date),
        UpdateExpression: 'ADD tokens :tokens SET expires_at = :exp',
        ExpressionAttributeValues: {
          ':tokens': tokens,
          ':exp': day.endsAt / 1000 + KEEP_AFTER_DAY_S,
        },
      }),
    );
  }

  private async read(orgId: string, date: string): Promise<DayItem> {
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: keys.planDay(orgId, date),
        ConsistentRead: true,
      }),
    );
    return { requests: Number(Item?.requests ?? 0), tokens: Number(Item?.tokens ?? 0) };
  }
}

/**
 * The item as it stood when the condition failed, which DynamoDB returns
 * (`ReturnValuesOnConditionCheckFailure`) in its low-level form; stores
 * that do not (dynalite) are read instead.
 */
function failedItem(error: unknown): DayItem | undefined {
  const item = (error as { Item?: Record<string, { N?: string }> }).Item;
  if (!item) return undefined;
  return { requests: Number(item.requests?.N ?? 0), tokens: Number(item.tokens?.N ?? 0) };
}
