import type { KeyCheck, ModelKeyVerifier, ProviderCredentials } from '../../ports/model-key.port';
import { guardedFetch } from '../net/guarded-fetch';
import type { OutboundPolicy } from '../net/outbound-policy';
import { checkOutboundUrl } from '../net/url-guard';
import { DEFAULT_RETRY_AFTER_SECONDS, redactKeys, retryAfter } from './provider-responses';
import { ANTHROPIC_VERSION, type ProviderUrls } from './provider-urls';

/** A key check is one small request: a slow provider is reported, not waited for. */
const CHECK_TIMEOUT_MS = 10_000;
/** A model list is a few KB; a megabyte is not an OpenAI-compatible answer. */
const CHECK_MAX_BYTES = 1024 * 1024;

/**
 * Checks a key with one cheap, free call — list models (`GET /models`),
 * which every provider of D33 serves and which needs a valid key — with plain
 * HTTP, so the model-keys function carries neither provider SDK. A custom
 * endpoint is customer input: checked by the SSRF guard first (scheme, every address),
 * then fetched through the guarded fetch (checked on the connected address,
 * no redirects). The hosted providers are operator configuration
 * (provider-urls.ts) and are fetched directly.
 */
export class HttpModelKeyVerifier implements ModelKeyVerifier {
  readonly #guarded: ReturnType<typeof guardedFetch>;

  constructor(
    private readonly policy: OutboundPolicy,
    private readonly urls: ProviderUrls,
  ) {
    this.#guarded = guardedFetch(policy, {
      timeoutMs: CHECK_TIMEOUT_MS,
      maxBytes: CHECK_MAX_BYTES,
    });
  }

  async check(credentials: ProviderCredentials): Promise<KeyCheck> {
    if (credentials.provider === 'custom') return this.#checkCustom(credentials);
    const anthropic = credentials.provider === 'anthropic';
    const url = anthropic
      ? `${this.urls.anthropic}/v1/models?limit=1`
      : `${this.urls.openai}/models`;
    const headers: Record<string, string> = anthropic
      ? { 'x-api-key': credentials.apiKey, 'anthropic-version': ANTHROPIC_VERSION }
      : { authorization: `Bearer ${credentials.apiKey}` };
    let response: Response;
    try {
      response = await fetch(url, {
        headers,
        redirect: 'manual',
        signal: AbortSignal.timeout(CHECK_TIMEOUT_MS),
      });
    } catch (error) {
      return {
        ok: false,
        kind: 'unavailable',
        reason: `the provider could not be reached (${errorName(error)})`,
        retryAfterSeconds: DEFAULT_RETRY_AFTER_SECONDS,
      };
    }
    return verdictOf(response, await response.text(), false);
  }

  async #checkCustom(credentials: ProviderCredentials): Promise<KeyCheck> {
    const endpoint = (credentials.endpoint ?? '').replace(/\/+$/, '');
    const allowed = await checkOutboundUrl(endpoint, this.policy);
    if (!allowed.ok) return { ok: false, kind: 'endpoint', reason: allowed.reason };
    let response: Response;
    try {
      response = await this.#guarded(`${endpoint}/models`, {
        headers: { authorization: `Bearer ${credentials.apiKey}`, accept: 'application/json' },
      });
    } catch (error) {
      return {
        ok: false,
        kind: 'endpoint',
        reason: `the endpoint could not be used: ${error instanceof Error ? redactKeys(error.message) : 'unknown error'}`,
      };
    }
    return verdictOf(response, await response.text(), true);
  }
}

function errorName(error: unknown): string {
  return error instanceof Error
    ? error.name === 'TimeoutError'
      ? 'timed out'
      : error.name
    : 'error';
}

/**
 * What a `GET /models` answer says about the key. OpenAI's errors are
 * `{"error":{"message","type","code"}}`, Anthropic's
 * `{"type":"error","error":{"type","message"}}`: both carry `error.message`.
 */
function verdictOf(response: Response, text: string, custom: boolean): KeyCheck {
  const status = response.status;
  const body = parseJson(text);
  const error = (body as { error?: { message?: unknown; code?: unknown; type?: unknown } } | null)
    ?.error;
  const said =
    typeof error?.message === 'string' ? redactKeys(error.message).slice(0, 500) : `HTTP ${status}`;
  if (status >= 200 && status < 300) {
    const data = (body as { data?: unknown } | null)?.data;
    if (Array.isArray(data)) return { ok: true };
    return {
      ok: false,
      kind: 'endpoint',
      reason: 'GET /models did not answer with a model list (not an OpenAI-compatible endpoint)',
    };
  }
  if (status === 429 && error?.code !== 'insufficient_quota') {
    return {
      ok: false,
      kind: 'rate_limited',
      reason: said,
      retryAfterSeconds: retryAfter(response.headers, DEFAULT_RETRY_AFTER_SECONDS),
    };
  }
  if (status >= 500 || status === 408) {
    return {
      ok: false,
      kind: 'unavailable',
      reason: `${status}: ${said}`,
      retryAfterSeconds: retryAfter(response.headers, DEFAULT_RETRY_AFTER_SECONDS),
    };
  }
  if (status >= 300 && status < 400) {
    return {
      ok: false,
      kind: 'endpoint',
      reason: `the endpoint redirects (${status}); give its final address`,
    };
  }
  if (custom && status === 404) {
    return {
      ok: false,
      kind: 'endpoint',
      reason: 'the endpoint has no GET /models (404): is the address its /v1 base?',
    };
  }
  return { ok: false, kind: 'refused', reason: `${status}: ${said}` };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
