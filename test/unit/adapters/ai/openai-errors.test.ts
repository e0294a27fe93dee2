import { APIConnectionError, APIError } from 'openai';
import { loadOpenAiSdk } from '../../../../layers/core/adapters/ai/openai-client';
import { retryAfter, toModelError } from '../../../../layers/core/adapters/ai/openai-errors';
import { ModelUnavailableError } from '../../../../layers/core/ports/answerer.port';
import { ModelRequestError } from '../../../../layers/core/ports/model-request-error';

const context = {
  operation: 'chat completion',
  timedOut: false,
  timeoutMs: 20_000,
  retryAfterSeconds: 30,
};

const apiError = (status: number, body: object, headers: Record<string, string> = {}) =>
  APIError.generate(status, { error: body }, undefined, new Headers(headers));

// The SDK is loaded with the first client; its errors are sorted from then on.
beforeAll(async () => {
  await loadOpenAiSdk();
});

describe('Function: retryAfter', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');

  it('reads seconds, milliseconds and HTTP dates', () => {
    expect(retryAfter(new Headers({ 'retry-after': '7' }), 30, now)).toBe(7);
    expect(retryAfter(new Headers({ 'retry-after': '1.2' }), 30, now)).toBe(2);
    expect(retryAfter(new Headers({ 'retry-after-ms': '2500', 'retry-after': '9' }), 30, now)).toBe(
      3,
    );
    expect(
      retryAfter(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:01:00 GMT' }), 30, now),
    ).toBe(60);
  });

  it('falls back when the header is missing or unreadable', () => {
    expect(retryAfter(undefined, 30, now)).toBe(30);
    expect(retryAfter(new Headers({ 'retry-after': 'soon' }), 12, now)).toBe(12);
  });

  it('waits at least a second and at most a day', () => {
    expect(retryAfter(new Headers({ 'retry-after': '0' }), 30, now)).toBe(1);
    expect(retryAfter(new Headers({ 'retry-after': '9999999' }), 30, now)).toBe(86_400);
  });
});

describe('Function: toModelError', () => {
  it('makes 408, 409, 429 and 5xx retryable', () => {
    for (const status of [408, 409, 429, 500, 502, 503]) {
      expect(toModelError(apiError(status, { message: 'busy' }), context)).toBeInstanceOf(
        ModelUnavailableError,
      );
    }
  });

  it('names the configuration problem of other 4xx', () => {
    const failures = [400, 401, 403, 404, 422].map((status) => {
      const error = toModelError(apiError(status, { message: 'no' }), context);
      return error instanceof ModelRequestError ? error.failure : error.name;
    });

    expect(failures).toEqual([
      'bad_request',
      'authentication',
      'permission',
      'model_not_found',
      'bad_request',
    ]);
  });

  it('makes connection errors and our own timeout retryable', () => {
    expect(toModelError(new APIConnectionError({ message: 'refused' }), context)).toBeInstanceOf(
      ModelUnavailableError,
    );
    expect(toModelError(null, { ...context, timedOut: true })).toMatchObject({
      name: 'ModelUnavailableError',
      message: 'The model provider did not answer the chat completion within 20000 ms',
    });
  });

  it('never repeats a key the provider quotes', () => {
    const error = toModelError(
      apiError(401, { message: 'Incorrect API key provided: sk-proj-abc***xyz.' }),
      context,
    );

    expect(error.message).toContain('[redacted key]');
    expect(error.message).not.toContain('sk-proj');
  });
});
