import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '../../ports/clock.port';
import type { PasswordSessionCutoffs } from '../../ports/session.port';
import { isConditionFailure } from './document-client';
import { keys } from './table-design';

/**
 * P223: how long a function instance trusts a cutoff it read, as P11 trusts
 * an organization: `enforce_sso` ends password sessions within this.
 */
export const PASSWORD_CUTOFF_CACHE_MS = 30_000;

/** More distinct organizations and domains than this in one instance's cache: start again. */
const CACHE_ENTRIES_MAX = 10_000;

type Key = { readonly PK: string; readonly SK: string };

/**
 * P223: one item per organization and per domain, holding the cutoff in
 * epoch ms (`valid_from_ms`), moved only forward by a conditional update and
 * never deleted. Checking a password session reads the two items it may be
 * subject to (in parallel, one round trip's time), cached per function
 * instance for `PASSWORD_CUTOFF_CACHE_MS`, so a busy instance reads each
 * organization's and domain's item about twice a minute, not per request.
 */
export class DynamoDbPasswordSessionCutoffs implements PasswordSessionCutoffs {
  private readonly cache = new Map<string, { readonly value: number | null; readonly until: number }>();

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly clock: Clock,
  ) {}

  endForOrganization(orgId: string, at: number): Promise<void> {
    return this.moveForward(keys.organizationPasswordCutoff(orgId), at);
  }

  endForDomain(domain: string, at: number): Promise<void> {
    return this.moveForward(keys.domainPasswordCutoff(domain), at);
  }

  async validFrom(orgId: string, domain: string | null): Promise<number | null> {
    const found = await Promise.all([
      this.read(keys.organizationPasswordCutoff(orgId)),
      domain === null ? Promise.resolve(null) : this.read(keys.domainPasswordCutoff(domain)),
    ]);
    const cutoffs = found.filter((value): value is number => value !== null);
    return cutoffs.length === 0 ? null : Math.max(...cutoffs);
  }

  private async read(key: Key): Promise<number | null> {
    const now = this.clock.now().getTime();
    const cached = this.cache.get(key.PK);
    if (cached && cached.until > now) return cached.value;
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }),
    );
    const value = typeof Item?.valid_from_ms === 'number' ? Item.valid_from_ms : null;
    this.remember(key, value, now);
    return value;
  }

  private async moveForward(key: Key, at: number): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key,
          UpdateExpression: 'SET entity = :entity, valid_from_ms = :at',
          ConditionExpression: 'attribute_not_exists(valid_from_ms) OR valid_from_ms < :at',
          ExpressionAttributeValues: { ':entity': 'password_session_cutoff', ':at': at },
        }),
      );
    } catch (error) {
      // A later cutoff is there already: it ends everything this one would.
      if (!isConditionFailure(error)) throw error;
      return;
    }
    // This instance sees its own change at once; others within the cache time.
    this.remember(key, at, this.clock.now().getTime());
  }

  private remember(key: Key, value: number | null, now: number): void {
    if (this.cache.size >= CACHE_ENTRIES_MAX) this.cache.clear();
    this.cache.set(key.PK, { value, until: now + PASSWORD_CUTOFF_CACHE_MS });
  }
}
