/**
 * What a model call costs (analytics take cost from a per-model price
 * table: every query result carries `cost_usd`).
 */

/** US dollars per million tokens. Embedding models have no output tokens. */
export interface ModelPrice {
  readonly inputUsdPerMillion: number;
  readonly outputUsdPerMillion: number;
}

/**
 * Standard-tier prices as published by the provider on
 * https://openai.com/api/pricing/ in August 2025; update when they change.
 * Cached-input and batch discounts are not applied: the figures are an upper
 * bound for what a query cost. The offline models cost nothing.
 */
export const MODEL_PRICES = {
  'offline-extractive': { inputUsdPerMillion: 0, outputUsdPerMillion: 0 },
  'offline-hash-v1': { inputUsdPerMillion: 0, outputUsdPerMillion: 0 },

  'gpt-5': { inputUsdPerMillion: 1.25, outputUsdPerMillion: 10 },
  'gpt-5-mini': { inputUsdPerMillion: 0.25, outputUsdPerMillion: 2 },
  'gpt-5-nano': { inputUsdPerMillion: 0.05, outputUsdPerMillion: 0.4 },
  'gpt-4.1': { inputUsdPerMillion: 2, outputUsdPerMillion: 8 },
  'gpt-4.1-mini': { inputUsdPerMillion: 0.4, outputUsdPerMillion: 1.6 },
  'gpt-4.1-nano': { inputUsdPerMillion: 0.1, outputUsdPerMillion: 0.4 },
  'gpt-4o': { inputUsdPerMillion: 2.5, outputUsdPerMillion: 10 },
  // The first gpt-4o snapshot kept its launch price.
  'gpt-4o-2024-05-13': { inputUsdPerMillion: 5, outputUsdPerMillion: 15 },
  'gpt-4o-mini': { inputUsdPerMillion: 0.15, outputUsdPerMillion: 0.6 },
  o3: { inputUsdPerMillion: 2, outputUsdPerMillion: 8 },
  'o4-mini': { inputUsdPerMillion: 1.1, outputUsdPerMillion: 4.4 },
  'o3-mini': { inputUsdPerMillion: 1.1, outputUsdPerMillion: 4.4 },
  'gpt-4-turbo': { inputUsdPerMillion: 10, outputUsdPerMillion: 30 },
  'gpt-3.5-turbo': { inputUsdPerMillion: 0.5, outputUsdPerMillion: 1.5 },

  'text-embedding-3-small': { inputUsdPerMillion: 0.02, outputUsdPerMillion: 0 },
  'text-embedding-3-large': { inputUsdPerMillion: 0.13, outputUsdPerMillion: 0 },
  'text-embedding-ada-002': { inputUsdPerMillion: 0.1, outputUsdPerMillion: 0 },

  // Amazon Bedrock (issue 32): on-demand list prices in us-east-1 as published
  // on https://aws.amazon.com/bedrock/pricing/, as of November 2025. Other
  // regions differ by a few percent; geographic inference profiles of some
  // newer models cost about 10% more; batch and cached-input discounts are
  // not applied. Keyed by foundation model id; a cross-region inference
  // profile (`us.amazon.nova-lite-v1:0`) is priced as its model.
  'amazon.nova-micro-v1:0': { inputUsdPerMillion: 0.035, outputUsdPerMillion: 0.14 },
  'amazon.nova-lite-v1:0': { inputUsdPerMillion: 0.06, outputUsdPerMillion: 0.24 },
  'amazon.nova-pro-v1:0': { inputUsdPerMillion: 0.8, outputUsdPerMillion: 3.2 },
  'anthropic.claude-3-haiku-20240307-v1:0': { inputUsdPerMillion: 0.25, outputUsdPerMillion: 1.25 },
  'anthropic.claude-3-5-haiku-20241022-v1:0': { inputUsdPerMillion: 0.8, outputUsdPerMillion: 4 },
  'anthropic.claude-haiku-4-5-20251001-v1:0': { inputUsdPerMillion: 1, outputUsdPerMillion: 5 },
  'anthropic.claude-3-5-sonnet-20241022-v2:0': { inputUsdPerMillion: 3, outputUsdPerMillion: 15 },
  'anthropic.claude-3-7-sonnet-20250219-v1:0': { inputUsdPerMillion: 3, outputUsdPerMillion: 15 },
  'anthropic.claude-sonnet-4-20250514-v1:0': { inputUsdPerMillion: 3, outputUsdPerMillion: 15 },
  'anthropic.claude-sonnet-4-5-20250929-v1:0': { inputUsdPerMillion: 3, outputUsdPerMillion: 15 },
  'amazon.titan-embed-text-v2:0': { inputUsdPerMillion: 0.02, outputUsdPerMillion: 0 },
  'amazon.titan-embed-text-v1': { inputUsdPerMillion: 0.1, outputUsdPerMillion: 0 },
  'cohere.embed-english-v3': { inputUsdPerMillion: 0.1, outputUsdPerMillion: 0 },
  'cohere.embed-multilingual-v3': { inputUsdPerMillion: 0.1, outputUsdPerMillion: 0 },
} as const satisfies Record<string, ModelPrice>;

/**
 * The price of a model as the provider names it. Responses name dated
 * snapshots (`gpt-4o-mini-2024-07-18`, `gpt-3.5-turbo-0125`): an exact entry
 * wins, else the snapshot is priced as its base model. A Bedrock inference
 * profile is priced as its foundation model. `null` when unknown.
 */
export function priceOf(model: string): ModelPrice | null {
  const prices: Readonly<Record<string, ModelPrice>> = MODEL_PRICES;
  // Own properties only: a model named `constructor` or `__proto__` is simply unknown.
  const own = (name: string) => (Object.hasOwn(prices, name) ? prices[name] : undefined);
  const base = model.replace(INFERENCE_PROFILE_PREFIX, '');
  return own(model) ?? own(base) ?? own(model.replace(SNAPSHOT_SUFFIX, '')) ?? null;
}

/** A Bedrock cross-region inference profile's geography (`us.`, `eu.`, `global.`…). */
const INFERENCE_PROFILE_PREFIX = /^(us|us-gov|eu|apac|jp|au|ca|global)\./;

export interface ModelCost {
  /** US dollars, rounded to 6 decimals (a millionth of a dollar). */
  readonly usd: number;
  /**
   * `false` for a model the table does not know (a custom endpoint's model,
   * D33, or one released after the table was written): `usd` is then 0, which
   * analytics must not read as "free".
   */
  readonly priced: boolean;
}

/**
 * The cost of one model call.
 *
 * @example costUsd('gpt-4o-mini', 1200, 300) // { usd: 0.00036, priced: true }
 */
export function costUsd(model: string, tokensInput: number, tokensOutput: number): ModelCost {
  for (const [name, count] of [
    ['tokensInput', tokensInput],
    ['tokensOutput', tokensOutput],
  ] as const) {
    if (!Number.isSafeInteger(count) || count < 0) {
      throw new RangeError(`${name} must be a non-negative integer, got ${count}`);
    }
  }
  const price = priceOf(model);
  if (!price) return { usd: 0, priced: false };
  const usd =
    (tokensInput * price.inputUsdPerMillion + tokensOutput * price.outputUsdPerMillion) / 1_000_000;
  return { usd: Math.round(usd * 1_000_000) / 1_000_000, priced: true };
}

/** `-2024-07-18` or `-0125` at the end of a model name. */
const SNAPSHOT_SUFFIX = /-(?:\d{4}-\d{2}-\d{2}|\d{4})$/;
