import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  askerOf,
  EMPTY_ROLLUP,
  groundednessCounters,
  LATENCY_BUCKETS_MS,
  latencyBucket,
  type Rollup,
} from '../../domain/analytics';
import type { Feedback, Interaction } from '../../domain/interaction';
import type { AnalyticsRollups, HourlyRollup } from '../../ports/interaction-repository.port';
import { queryAll } from './query-all';
import { keys } from './table-design';

const PREFIX = 'ROLLUP#';
/** `2026-11-21T10` — sorts by time, so a date range is a sort-key range. */
const hourKey = (at: Date) => at.toISOString().slice(0, 13);

/**
 * One item per organization, hour and agent, updated with one `ADD` of every
 * counter when an interaction is written (ARCHITECTURE.md: analytics never
 * scans interactions). Who asked (a user's or an API key's id, `askerOf`) is
 * a string set for analytics' unique users; an hour's set holds tens of
 * thousands of ids within DynamoDB's item limit. Hours written before askers
 * were kept hold a set of sessions instead, which is read as their askers: the
 * only count those hours have.
 */
export class DynamoDbAnalyticsRollups implements AnalyticsRollups {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  private key(orgId: string, hour: Date, agentId: string) {
    return { PK: keys.orgPartition(orgId), SK: `${PREFIX}${hourKey(hour)}#${agentId}` };
  }

  async recordInteraction(orgId: string, interaction: Interaction): Promise<void> {
    const bucket = latencyBucket(interaction.latency_ms);
    // An answer paid with the organization's own key is counted apart from ours.
    const ownKey = interaction.billed_to === 'model_key';
    const cost = Math.round(interaction.cost_usd * 1_000_000);
    const grounding = groundednessCounters(interaction);
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: this.key(orgId, new Date(interaction.created_at), interaction.agent_id),
        UpdateExpression: `ADD queries :one, latency_ms_sum :latency, tokens_input :in, tokens_output :out, ${ownKey ? 'model_key_cost_micro_usd :cost, model_key_queries :one' : 'cost_micro_usd :cost'}, cited :cited, groundedness_milli_sum :groundedness, grounded :grounded, #bucket :one, askers :asker SET agent_id = :agent, org_id = :org`,
        ExpressionAttributeNames: { '#bucket': `h${bucket}` },
        ExpressionAttributeValues: {
          ':one': 1,
          ':latency': interaction.latency_ms,
          ':in': interaction.tokens_input,
          ':out': interaction.tokens_output,
          ':cost': cost,
          ':cited': interaction.cited_sources > 0 ? 1 : 0,
          ':groundedness': grounding.milli,
          ':grounded': grounding.counted,
          ':asker': new Set([askerOf(interaction)]),
          ':agent': interaction.agent_id,
          ':org': orgId,
        },
      }),
    );
  }

  async recordFeedback(
    orgId: string,
    interaction: Interaction,
    previous: Feedback | null,
    next: Feedback,
  ): Promise<void> {
    if (previous === next) return;
    const adds = [`${next} :one`, ...(previous ? [`${previous} :minusOne`] : [])];
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: this.key(orgId, new Date(interaction.created_at), interaction.agent_id),
        UpdateExpression: `ADD ${adds.join(', ')}`,
        ExpressionAttributeValues: { ':one': 1, ...(previous ? { ':minusOne': -1 } : {}) },
      }),
    );
  }

  async read(
    orgId: string,
    range: { from: Date; to: Date },
    agentId?: string,
  ): Promise<HourlyRollup[]> {
    const items = await queryAll(this.client, {
      TableName: this.tableName,
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
      ...(agentId ? { FilterExpression: 'agent_id = :agent' } : {}),
      ExpressionAttributeValues: {
        ':pk': keys.orgPartition(orgId),
        ':from': `${PREFIX}${hourKey(range.from)}`,
        // Every hour before `to`: keys of the hour `to` itself start with this bound, followed by '#'.
        ':to': `${PREFIX}${hourKey(new Date(range.to.getTime() - 1))}#~`,
        ...(agentId ? { ':agent': agentId } : {}),
      },
      ConsistentRead: true,
    });
    return items.map((item) => {
      const sk = String(item.SK);
      const hour = new Date(`${sk.slice(PREFIX.length, PREFIX.length + 13)}:00:00.000Z`);
      const histogram = LATENCY_BUCKETS_MS.map((_, index) => Number(item[`h${index}`] ?? 0));
      const rollup: Rollup = {
        ...EMPTY_ROLLUP,
        queries: Number(item.queries ?? 0),
        latency_ms_sum: Number(item.latency_ms_sum ?? 0),
        tokens_input: Number(item.tokens_input ?? 0),
        tokens_output: Number(item.tokens_output ?? 0),
        cost_micro_usd: Number(item.cost_micro_usd ?? 0),
        model_key_cost_micro_usd: Number(item.model_key_cost_micro_usd ?? 0),
        model_key_queries: Number(item.model_key_queries ?? 0),
        cited: Number(item.cited ?? 0),
        groundedness_milli_sum: Number(item.groundedness_milli_sum ?? 0),
        grounded: Number(item.grounded ?? 0),
        positive: Number(item.positive ?? 0),
        negative: Number(item.negative ?? 0),
        latency_histogram: histogram,
        askers: new Set(
          (item.askers as Set<string> | undefined) ??
            [...((item.sessions as Set<string> | undefined) ?? [])].map(
              (session) => `session:${session}`,
            ),
        ),
      };
      return { hour, agentId: String(item.agent_id), rollup };
    });
  }
}
