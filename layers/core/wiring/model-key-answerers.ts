import { AnthropicAnswerer } from '../adapters/ai/anthropic-answerer';
import { OpenAiAnswerer } from '../adapters/ai/openai-answerer';
import type { ProviderUrls } from '../adapters/ai/provider-urls';
import { guardedStreamingFetch } from '../adapters/net/guarded-streaming-fetch';
import type { OutboundPolicy } from '../adapters/net/outbound-policy';
import type { ModelKeyAnswererFactory } from '../ports/model-key.port';

/** An answer's stream is a few hundred KB at most; this stops an endpoint that never ends. */
const CUSTOM_ENDPOINT_MAX_BYTES = 16 * 1024 * 1024;

/**
 * The answerer for an organization's own key — OpenAI and custom
 * OpenAI-compatible endpoints through the `openai` SDK, Anthropic through
 * its Messages API with the official SDK (loaded at its first use).
 * A custom endpoint is customer input: every request to it goes through the
 * D35 guarded fetch under `policy`.
 */
export function modelKeyAnswerers(options: {
  readonly policy: OutboundPolicy;
  readonly urls: ProviderUrls;
}): ModelKeyAnswererFactory {
  const customFetch = guardedStreamingFetch(options.policy, {
    maxBytes: CUSTOM_ENDPOINT_MAX_BYTES,
  });
  return async (credentials) => {
    switch (credentials.provider) {
      case 'openai':
        return new OpenAiAnswerer({ apiKey: credentials.apiKey, baseURL: options.urls.openai });
      case 'custom':
        return new OpenAiAnswerer({
          apiKey: credentials.apiKey,
          baseURL: (credentials.endpoint ?? '').replace(/\/+$/, ''),
          fetch: customFetch,
        });
      case 'anthropic':
        return new AnthropicAnswerer({
          apiKey: credentials.apiKey,
          baseURL: options.urls.anthropic,
        });
    }
  };
}
