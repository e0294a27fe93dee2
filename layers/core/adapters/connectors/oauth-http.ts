import { createHash } from 'node:crypto';
import { CONNECTOR_LIMITS, ProviderUnavailableError } from '../../domain/connector';
import { guardedFetch, OutboundRequestError } from '../net/guarded-fetch';
import type { OutboundPolicy } from '../net/outbound-policy';

/** `fetch` under D35 for provider endpoints: the policy's schemes and addresses, time and size caps (P153). */
export type ProviderFetch = (input: string | URL, init?: RequestInit) => Promise<Response>;

export function providerFetch(policy: OutboundPolicy): ProviderFetch {
  const fetch = guardedFetch(policy, {
    timeoutMs: CONNECTOR_LIMITS.requestTimeoutMs,
    maxBytes: CONNECTOR_LIMITS.maxResponseBytes,
  });
  return async (input, init) => {
    try {
      return await fetch(input, init);
    } catch (error) {
      // Refused by D35, unreachable, too slow or too large: the attempt fails, the job is retried.
      if (error instanceof OutboundRequestError) throw new ProviderUnavailableError(error.message);
      throw error;
    }
  };
}

/** RFC 7636 S256. */
export const codeChallengeOf = (verifier: string) =>
  createHash('sha256').update(verifier).digest('base64url');

/** A token endpoint's answer, as RFC 6749 §5 shapes it: the tokens, or `error`. */
export interface TokenAnswer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

export async function readJsonObject(response: Response): Promise<Record<string, unknown>> {
  const text = await response.text();
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

export const stringOr = (value: unknown, fallback: string | null): string | null =>
  typeof value === 'string' && value !== '' ? value : fallback;

/** `Retry-After` in seconds (delta-seconds or an HTTP date); `null` when absent or unreadable. */
export function retryAfterSeconds(header: string | null, now: Date): number | null {
  if (header === null) return null;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return null;
  return Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}
