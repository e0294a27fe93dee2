import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { PasswordSessionCutoff } from '../../domain/session';
import type { Clock } from '../../ports/clock.port';
import type { PasswordSessionCutoffs } from '../../ports/session.port';
import { isConditionFailure } from './document-client';
import { keys } from './table-design';

/**
 * How long a function instance trusts a cutoff it read, as P11 trusts
 * an organization: `enforce_sso` ends password sessions within this.
 */
export const PASSWORD_CUTOFF_CACHE_MS = 30_000;

/** More distinct organizations and domains than this in one instance's cache: start again. */
const CACHE_ENTRIES_MAX = 10_000;

type Key = { readonly PK: string; readonly SK: string };

/**
 * One item per organization and per domain, holding the cutoff in
 * epoch ms (`valid_from_ms`) and the session it keeps, moved only forward
 * by a conditional update and never deleted. Checking a password session
 * reads the two items it may be subject to (in parallel, one round trip's
 * time), cached per function instance for `PASSWORD_CUTOFF_CACHE_MS`, so a
 * busy instance reads each organization's and domain's item about twice a
 * minute, not per request.
 */
export class DynamoDbPasswordSessionCutoffs implements PasswordSessionCutoffs {
  private readonly cache = new Map<
    string,
    { readonly cutoff: PasswordSessionCutoff | null; readonly until: number }
  >();

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly clock: Clock,
  ) {}

  endForOrganization(orgId: string, cutoff: PasswordSessionCutoff): Promise<void> {
    return this.moveForward(keys.organizationPasswordCutoff(orgId), cutoff);
  }

  endForDomain(domain: string, cutoff: PasswordSessionCutoff): Promise<void> {
    return this.moveForward(keys.domainPasswordCutoff(domain), cutoff);
  }

  async validFrom(orgId: string, domain: string | null): Promise<PasswordSessionCutoff[]> {
    const found = await Promise.all([
      this.read(keys.organizationPasswordCutoff(orgId)),
      domain === null ? Promise.resolve(null) : this.read(keys.domainPasswordCutoff(domain)),
    ]);
    return found.filter((cutoff): cutoff is PasswordSessionCutoff => cutoff !== null);
  }

  private async read(key: Key): Promise<PasswordSessionCutoff | null> {
    const now = this.clock.now().getTime();
    const cached = this.cache.get(key.PK);
    if (cached && cached.until > now) return cached.cutoff;
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }),
    );
    const cutoff =
      typeof Item?.valid_from_ms === 'number'
        ? {
            at: Item.valid_from_ms,
            keptSessionId: typeof Item.kept_session === 'string' ? Item.kept_session : null,
          }
        : null;
    this.remember(key, cutoff, now);
    return cutoff;
  }

  private async moveForward(key: Key, cutoff: PasswordSessionCutoff): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key,
          UpdateExpression:
            cutoff.keptSessionId === null
              ? 'SET entity = :entity, valid_from_ms = :at REMOVE kept_session'
              : 'SET entity = :entity, valid_from_ms = :at, kept_session = :kept',
          ConditionExpression: 'attribute_not_exists(valid_from_ms) OR valid_from_ms < :at',
          ExpressionAttributeValues: {
            ':entity': 'password_session_cutoff',
            ':at': cutoff.at,
            ...(cutoff.keptSessionId === null ? {} : { ':kept': cutoff.keptSessionId }),
          },
        }),
      );
    } catch (error) {
      // A later cutoff is there already: it ends everything this one would.
      if (!isConditionFailure(error)) throw error;
      return;
    }
    // This instance sees its own change at once; others within the cache time.
    this.remember(key, cutoff, this.clock.now().getTime());
  }

  private remember(key: Key, cutoff: PasswordSessionCutoff | null, now: number): void {
    if (this.cache.size >= CACHE_ENTRIES_MAX) this.cache.clear();
    this.cache.set(key.PK, { cutoff, until: now + PASSWORD_CUTOFF_CACHE_MS });
  }
}
