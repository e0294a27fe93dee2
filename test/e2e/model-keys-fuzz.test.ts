import fc from 'fast-check';
import { MODEL_KEY_PROVIDERS } from '../../layers/core/domain/model-key';
import { hostileJsonValue } from '../support/http-arbitraries';
import { api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { type ModelProviders, startModelProviders } from '../support/model-providers';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';

/**
 * Fuzzing of `POST /api/v1/model-keys` (D33) over HTTP: whatever the body,
 * the answer is 201 (a well-formed key the loopback provider accepts) or a
 * 400 in the v1 shape — never a 500, never a key in the answer — and a
 * refused body stores nothing. The providers are the loopback server of
 * test/support/model-providers.ts (responses after the providers' docs).
 */
describe('Model keys: fuzzed bodies (D33)', () => {
  const clock = new TestClock();
  let service: TestService;
  let providers: ModelProviders;

  beforeAll(async () => {
    providers = await startModelProviders();
    service = await startTestService({
      env: {
        SVC_ALLOW_PRIVATE_URLS: 'true',
        SVC_MODEL_KEY_OPENAI_URL: providers.openaiUrl,
        SVC_MODEL_KEY_ANTHROPIC_URL: providers.anthropicUrl,
      },
      clock,
    });
  });
  afterAll(async () => {
    await service.end();
    await providers.close();
  });

  const keyText = fc.oneof(
    fc.string({ minLength: 0, maxLength: 40 }),
    fc.stringMatching(/^[\x21-\x7e]{8,60}$/),
    fc.string({ unit: 'grapheme', maxLength: 20 }),
  );
  const endpoint = fc.oneof(
    fc.constant(undefined),
    fc.constantFrom(
      'http://127.1/v1',
      'https://[::ffff:7f00:1]/v1',
      'ftp://example.com',
      'javascript:alert(1)',
      '',
      ' ',
    ),
    fc.constant('https://model.example.invalid/v1'),
    fc.string({ maxLength: 30 }),
  );
  const body = fc.oneof(
    fc.record(
      {
        provider: fc.oneof(fc.constantFrom(...MODEL_KEY_PROVIDERS), fc.string({ maxLength: 12 })),
        key: fc.oneof(keyText, hostileJsonValue),
        endpoint,
        name: fc.oneof(fc.constant(null), fc.string({ maxLength: 250 }), hostileJsonValue),
      },
      { requiredKeys: [] },
    ),
    hostileJsonValue,
  );

  it('answers every body with 201 or a v1 400, never a 500, never echoing the key', async () => {
    await fc.assert(
      fc.asyncProperty(body, async (generated) => {
        clock.advance(REFILL_ALL_BUCKETS_MS);
        const before = json(
          await api(service.url, '/api/v1/model-keys', { key: service.adminKey }),
        ).total;
        const response = await api(service.url, '/api/v1/model-keys', {
          method: 'POST',
          key: service.adminKey,
          body: generated,
        });
        expect([201, 400]).toContain(response.status);
        const answer = json(response);
        const sentKey = (generated as { key?: unknown } | null)?.key;
        if (typeof sentKey === 'string' && sentKey.length >= 8) {
          expect(response.text).not.toContain(sentKey);
        }
        const after = json(
          await api(service.url, '/api/v1/model-keys', { key: service.adminKey }),
        ).total;
        if (response.status === 201) {
          expect(answer).toMatchObject({
            id: expect.stringMatching(/^mk_/),
            last4: expect.any(String),
          });
          expect(after).toBe(before + 1);
        } else {
          expect(answer.error.code).toBe('invalid_request');
          expect(typeof answer.request_id).toBe('string');
          expect(after).toBe(before);
        }
      }),
      { numRuns: 40 },
    );
  }, 180_000);
});
