import type { ModelKey, ModelKeyProvider } from '../domain/model-key';
import type { Page, PageRequest } from '../domain/pagination';
import type { Answerer } from './answerer.port';

/** An organization's model keys; the key is kept sealed beside the entity and read only to answer. */
export interface ModelKeyRepository {
  create(orgId: string, modelKey: ModelKey, sealedKey: string): Promise<void>;
  get(orgId: string, id: string): Promise<ModelKey | null>;
  /** The entity and its sealed key, for the query family only. */
  getSealed(orgId: string, id: string): Promise<{ modelKey: ModelKey; sealedKey: string } | null>;
  list(orgId: string, page: PageRequest): Promise<Page<ModelKey>>;
  delete(orgId: string, id: string): Promise<boolean>;
}

/** What is needed to call a provider with an organization's key. */
export interface ProviderCredentials {
  readonly provider: ModelKeyProvider;
  readonly apiKey: string;
  /** `custom`: the OpenAI-compatible base address. */
  readonly endpoint: string | null;
}

/** The provider's verdict on a key, from one cheap call. */
export type KeyCheck =
  | { readonly ok: true }
  /** The provider refused the key (401/403/…): the caller fixes the key. */
  | { readonly ok: false; readonly kind: 'refused'; readonly reason: string }
  /** The endpoint cannot be used (refusal, no such host, not an OpenAI-compatible answer). */
  | { readonly ok: false; readonly kind: 'endpoint'; readonly reason: string }
  /** The provider is rate limiting: try again after `retryAfterSeconds`. */
  | {
      readonly ok: false;
      readonly kind: 'rate_limited';
      readonly reason: string;
      readonly retryAfterSeconds: number;
    }
  /** The provider is down or slow: try again later. */
  | {
      readonly ok: false;
      readonly kind: 'unavailable';
      readonly reason: string;
      readonly retryAfterSeconds: number;
    };

/** Checks a key with its provider before it is saved. */
export interface ModelKeyVerifier {
  check(credentials: ProviderCredentials): Promise<KeyCheck>;
}

/** Builds the answerer that calls a provider with an organization's own key (query family). */
export type ModelKeyAnswererFactory = (credentials: ProviderCredentials) => Promise<Answerer>;
