import type OpenAI from 'openai';

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

type OpenAiSdk = typeof import('openai');
let sdk: Promise<OpenAiSdk> | undefined;
let loadedSdk: OpenAiSdk | undefined;

/**
 * The OpenAI SDK is loaded at the first call to an OpenAI (or compatible)
 * model, not at init: a deployment on Bedrock or the offline models, and
 * every answer with another provider's key, never read it (deployed, it is
 * bundled beside `index.js`).
 */
export function loadOpenAiSdk(): Promise<OpenAiSdk> {
  sdk ??= import('openai').then((loaded) => {
    loadedSdk = loaded;
    return loaded;
  });
  return sdk;
}

/**
 * The SDK once a client has loaded it, for sorting the errors it throws
 * (openai-errors.ts); `undefined` before, when no error can be one of its.
 */
export function loadedOpenAiSdk(): OpenAiSdk | undefined {
  return loadedSdk;
}

/**
 * An SDK client configured from the options alone, created at the first
 * call of the function returned. Every setting the SDK
 * would otherwise read from the environment (`OPENAI_BASE_URL`,
 * `OPENAI_ORG_ID`, `OPENAI_PROJECT_ID`) is passed explicitly: configuration
 * is parsed once, by the wiring (STYLE.md §5), and a per-agent key must
 * never pick up the operator's organization.
 */
export function openAiClientOnFirstUse(
  options: OpenAiConnectionOptions,
  settings: { readonly timeoutMs: number; readonly maxRetries: number },
): () => Promise<OpenAI> {
  let client: Promise<OpenAI> | undefined;
  return () => {
    client ??= loadOpenAiSdk().then(
      ({ default: OpenAiClient }) =>
        new OpenAiClient({
          apiKey: options.apiKey,
          baseURL: options.baseURL ?? OPENAI_DEFAULT_BASE_URL,
          organization: null,
          project: null,
          timeout: settings.timeoutMs,
          maxRetries: settings.maxRetries,
          ...(options.fetch ? { fetch: options.fetch } : {}),
        }),
    );
    return client;
  };
}
