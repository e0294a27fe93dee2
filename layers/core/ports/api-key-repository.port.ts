import type { ApiKeyRecord } from '../domain/api-key-record';

/** API keys, stored by the SHA-256 of their value. */
export interface ApiKeyRepository {
  create(record: ApiKeyRecord, keyHash: string): Promise<void>;
  findByHash(keyHash: string): Promise<ApiKeyRecord | null>;
  listByOrganization(orgId: string): Promise<ApiKeyRecord[]>;
  /**
   * Stamps `last_used_at` with `at` unless it is already later than
   * `staleBefore` (at most one write per key and interval). A key
   * revoked meanwhile stays revoked.
   */
  recordUse(keyHash: string, at: string, staleBefore: string): Promise<void>;
  /** `false` when no such key exists in the organization. */
  revoke(orgId: string, keyId: string): Promise<boolean>;
}
