import type { Environment } from './environments';
import type { Scope } from './scopes';

export const API_KEY_LIMITS = { nameMax: 200 } as const;

/** What is stored of an API key: never the key itself. */
export interface ApiKeyRecord {
  readonly id: string;
  readonly org_id: string;
  readonly name: string;
  readonly scopes: readonly Scope[];
  readonly environment: Environment;
  readonly last4: string;
  readonly created_at: string;
  /** When the key last authenticated a request, to the minute; `null` until then. */
  readonly last_used_at: string | null;
}
