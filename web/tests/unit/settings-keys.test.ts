import { ApiError } from '../../src/api/api-error';
import {
  chosenScopes,
  environmentWords,
  keyEnding,
  lastUseWords,
} from '../../src/screens/settings/api-keys/api-keys.state';
import {
  agentsBlockingDelete,
  inUseWords,
  modelKeyFailure,
  modelKeyTitle,
  namesInWords,
} from '../../src/screens/settings/model-keys/model-keys.state';

const failure = (status: number, details: Record<string, unknown>, retryAfter?: number) =>
  ApiError.from(
    {
      error: { code: 'invalid_request', message: 'the service said', details },
      request_id: 'req_1',
    },
    { status, headers: new Headers(retryAfter ? { 'Retry-After': String(retryAfter) } : {}) },
  );

describe('API keys', () => {
  it('names the environment a key will carry, with its prefix (D10)', () => {
    expect(environmentWords('test')).toEqual({ label: 'Test', prefix: 'svcsk_test_' });
    expect(environmentWords('live')).toEqual({ label: 'Live', prefix: 'svcsk_live_' });
  });

  it('takes the scopes in the spec’s order, and refuses none in words', () => {
    const form = new FormData();
    form.append('scopes', 'Admin');
    form.append('scopes', 'Read');
    expect(chosenScopes(form)).toEqual({ scopes: ['Read', 'Admin'], problem: null });
    expect(chosenScopes(new FormData()).problem).toMatch(/at least one scope/);
  });

  it('says when a key was last used, or that it never was (P75)', () => {
    const now = Date.parse('2026-05-01T12:00:00Z');
    expect(lastUseWords(null, now)).toBe('Never used');
    expect(lastUseWords('2026-05-01T11:59:30Z', now)).toBe('In the last minute');
    expect(lastUseWords('2026-05-01T09:00:00Z', now)).toMatch(/3 hours ago/);
    expect(keyEnding('a1B2')).toBe('…a1B2');
  });
});

describe('Model keys', () => {
  it('names agents as a sentence', () => {
    expect(namesInWords(['A'])).toBe('A');
    expect(namesInWords(['A', 'B'])).toBe('A and B');
    expect(namesInWords(['A', 'B', 'C'])).toBe('A, B and C');
    expect(inUseWords([{ id: 'agent_1', name: 'Returns helper' }])).toBe(
      'Used by Returns helper: choose another key for it first.',
    );
    expect(
      inUseWords([
        { id: 'agent_1', name: 'Returns helper' },
        { id: 'agent_2', name: 'Billing bot' },
      ]),
    ).toBe('Used by Returns helper and Billing bot: choose another key for them first.');
  });

  it('calls a key by its name, else by its provider and last four characters', () => {
    expect(modelKeyTitle({ name: 'Ours', provider: 'openai', last4: 'abcd' })).toBe('Ours');
    expect(modelKeyTitle({ name: null, provider: 'custom', last4: 'abcd' })).toBe(
      'OpenAI-compatible key …abcd',
    );
  });

  it('shows the provider’s verdict on a refused key, keeping the reference (P132)', () => {
    const refused = modelKeyFailure(
      failure(400, {
        fields: [{ path: 'key', message: 'refused by the provider' }],
        provider: 'openai',
        provider_reason: '401: Incorrect API key provided.',
      }),
      'openai',
    ) as ApiError;
    expect(refused.message).toBe(
      'OpenAI refused this key: “401: Incorrect API key provided”. Nothing was saved: check that you copied the whole key and that it is still active.',
    );
    expect(refused.requestId).toBe('req_1');
  });

  it('explains a refused endpoint, the provider’s rate limit and its outage', () => {
    const endpoint = modelKeyFailure(
      failure(400, {
        fields: [{ path: 'endpoint', message: 'x' }],
        provider_reason: 'the endpoint has no GET /models (404)',
      }),
      'custom',
    ) as ApiError;
    const limited = modelKeyFailure(
      failure(429, { reason: 'model_provider', retry_after: 20 }),
      'anthropic',
    ) as ApiError;
    const down = modelKeyFailure(failure(503, {}), 'openai') as ApiError;
    expect(endpoint.message).toBe(
      'The endpoint cannot be used: the endpoint has no GET /models (404). Nothing was saved.',
    );
    expect(limited.message).toBe(
      'Anthropic is limiting requests with this key: try again in 20 s. Nothing was saved.',
    );
    expect(down.message).toMatch(/^OpenAI could not check the key just now/);
  });

  it('names the agents a refused delete names (P135, P282), and leaves other failures alone', () => {
    const agents = [
      { id: 'agent_1', name: 'Billing bot' },
      { id: 'agent_2', name: 'Returns helper' },
    ];
    const conflict = failure(409, { agent_ids: ['agent_1', 'agent_2'], agents });
    expect((modelKeyFailure(conflict, 'openai') as ApiError).message).toBe(
      'Used by Billing bot and Returns helper: choose another key for them first.',
    );
    expect(agentsBlockingDelete(conflict)).toEqual(agents);
    expect(agentsBlockingDelete(failure(404, {}))).toEqual([]);
    const other = failure(404, {});
    expect(modelKeyFailure(other, 'openai')).toBe(other);
  });
});
