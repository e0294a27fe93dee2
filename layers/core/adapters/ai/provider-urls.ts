/**
 * Where the hosted providers of D33 are reached with an organization's key.
 * Operator configuration, not customer input: the cloud uses the providers'
 * own addresses; a local run may point them elsewhere (* `SVC_MODEL_KEY_OPENAI_URL`, `SVC_MODEL_KEY_ANTHROPIC_URL`), which is how the
 * tests reach loopback servers speaking the providers' wire formats.
 */
export interface ProviderUrls {
  /** OpenAI's API base, with `/v1`. */
  readonly openai: string;
  /** Anthropic's API base, without `/v1` (the SDK adds it). */
  readonly anthropic: string;
}

export const HOSTED_PROVIDER_URLS: ProviderUrls = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com',
};

/** Anthropic's API version header, as its documentation and SDK send it. */
export const ANTHROPIC_VERSION = '2023-06-01';
