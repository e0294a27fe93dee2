import { type ApiResponse, json } from './http-client';

/** D16: the `error.details.reason` of a 429 (nested shape); `undefined` for any other answer. */
export function refusalReason(response: ApiResponse): string | undefined {
  return response.status === 429 ? json(response).error?.details?.reason : undefined;
}

/**
 * Sends a request again while it is refused for concurrency only. A refused
 * request is charged nothing (P59), so the other limits see each request
 * exactly once, however often it had to wait for a concurrency slot: a burst
 * larger than the plan's concurrent requests (D31: 2, 10, 50) still tests
 * the buckets and counters exactly.
 */
export async function pastConcurrency(send: () => Promise<ApiResponse>): Promise<ApiResponse> {
  for (let attempt = 0; ; attempt += 1) {
    const response = await send();
    if (refusalReason(response) !== 'concurrency') return response;
    await new Promise((resolve) => setTimeout(resolve, retryDelayMs(attempt)));
  }
}

/**
 * Full jitter, growing to 200 ms: hundreds of waiting requests retrying every
 * few milliseconds kept a 2-core CI machine busy refusing them, and the
 * suite's 300-request burst ran past its timeout there.
 */
function retryDelayMs(attempt: number): number {
  return Math.random() * Math.min(200, 10 * 2 ** attempt);
}
