/**
 * Why a model provider refused a request for good: retrying it unchanged
 * will fail again.
 */
export const MODEL_REQUEST_FAILURES = [
  /** The key is missing, wrong or revoked (401). */
  'authentication',
  /** The key may not use this model or endpoint (403). */
  'permission',
  /** The model does not exist at this endpoint (404). */
  'model_not_found',
  /** The account's quota or billing limit is used up (429 `insufficient_quota`). */
  'quota',
  /** The provider rejected the request itself (400, 422, other 4xx). */
  'bad_request',
  /** The provider answered with something unusable (wrong embedding size, …). */
  'bad_response',
] as const;
export type ModelRequestFailure = (typeof MODEL_REQUEST_FAILURES)[number];

/**
 * A model provider refused the request because of how the model is
 * configured (bad key, unknown model name, …), unlike `ModelUnavailableError`
 * (down, slow, rate limited: retry later). The service decides which status
 * this becomes (issue 3); the message names the provider's reason and never
 * carries the key.
 */
export class ModelRequestError extends Error {
  constructor(
    message: string,
    readonly failure: ModelRequestFailure,
    /** The provider's HTTP status, when it answered with one. */
    readonly providerStatus: number | null,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'ModelRequestError';
  }
}
