import OpenAI from 'openai';

/** How to reach an OpenAI (or OpenAI-compatible) endpoint. */
export interface OpenAiConnectionOptions {
  /**
   * `OPENAI_API_KEY` (later an agent's own model key), or a function the
   * SDK calls before each request: the cloud reads the key from Secrets
   * Manager that way, so a rotated key is picked up without a deploy.
   */
  readonly apiKey: string | (() => Promise<string>);
  /**
   * Any OpenAI-compatible endpoint (`OPENAI_BASE_URL`).
   * @default 'https://api.openai.com/v1'
   */
  readonly baseURL?: string;
  /** Longest wait for the provider's next sign of life, in milliseconds. */
  readonly timeoutMs?: number;
  /** Retries the SDK makes on its own (connection errors, 408/409/429/5xx). */
  readonly maxRetries?: number;
  /**
   * Seconds a caller is told to wait (`Retry-After`) when the provider names
   * none.
   * @default 30
   */
  readonly retryAfterSeconds?: number;
  /**
   * How requests are sent: a customer's endpoint (`custom`) goes through
   * The SSRF guarded fetch. @default the global fetch
   */
  readonly fetch?: typeof fetch;
}

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';
export { DEFAULT_RETRY_AFTER_SECONDS } from './provider-responses';

/**
 * An SDK client configured from the options alone. Every setting the SDK
 * would otherwise read from the environment (`OPENAI_BASE_URL`,
 * `OPENAI_ORG_ID`, `OPENAI_PROJECT_ID`) is passed explicitly: configuration
 * is parsed once, by the wiring (STYLE.md §5), and a per-agent key must
 * never pick up the operator's organization.
 */
export function createOpenAiClient(
  options: OpenAiConnectionOptions,
  settings: { readonly timeoutMs: number; readonly maxRetries: number },
): OpenAI {
  return new OpenAI({
    apiKey: options.apiKey,
    baseURL: options.baseURL ?? OPENAI_DEFAULT_BASE_URL,
    organization: null,
    project: null,
    timeout: settings.timeoutMs,
    maxRetries: settings.maxRetries,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}
