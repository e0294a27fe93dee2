// Must come first: sets the loggers' level before any function module builds its logger.
import '../support/log-everything';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../layers/core/adapters/dynamodb/table-design';
import { expectNestedError, fieldPaths } from '../support/error-shapes';
import { createAgent } from '../support/fixtures';
import { api, json } from '../support/http-client';
import { parseEventStream } from '../support/sse';
import { createTenant } from '../support/tenants';
import {
  ANTHROPIC_KEY,
  CUSTOM_KEY,
  modelKeysSuite,
  OPENAI_KEY,
  QUESTION,
} from './model-keys-suite';

describe('Model keys (D33)', () => {
  const { itNeverLogsAKey, clock, registered, ask, service, providers, sourceId } =
    modelKeysSuite();

  describe('agents answering with a key', () => {
    it('checks that the model fits the provider (P133)', async () => {
      const anthropic = await registered({ provider: 'anthropic', key: ANTHROPIC_KEY });
      const openai = await registered({ provider: 'openai', key: OPENAI_KEY });
      for (const [model, key] of [
        ['gpt-4o-mini', anthropic.id],
        ['claude-sonnet-5-5', openai.id],
        ['offline-extractive', openai.id],
      ]) {
        const response = await api(service().url, '/api/v1/agents', {
          method: 'POST',
          key: service().adminKey,
          body: { name: 'Misfit', data_source_ids: [], model, model_key_id: key },
        });
        expect(fieldPaths(expectNestedError(response, 400, 'invalid_request'))).toEqual(['model']);
      }
    });

    it.each([
      [
        'openai',
        'gpt-4o-mini',
        () => ({ key: OPENAI_KEY }),
        'Refunds are available within 30 days',
      ],
      [
        'anthropic',
        'claude-sonnet-5-5',
        () => ({ key: ANTHROPIC_KEY }),
        'You can return a widget within 30 days',
      ],
      [
        'custom',
        'llama-3.1-70b',
        () => ({ key: CUSTOM_KEY, endpoint: providers().customUrl }),
        'Refunds are available within 30 days',
      ],
    ] as const)(
      'answers with a %s key through /api/v1/query and the streaming chat route, billed to the key',
      async (provider, model, keyOf, expected) => {
        const modelKey = await registered({ provider, ...keyOf() });
        const agent = await createAgent(service(), service().adminKey, {
          name: `${provider} agent`,
          data_source_ids: [sourceId()],
          model,
          model_key_id: modelKey.id,
        });
        expect(agent.model_key_id).toBe(modelKey.id);
        const before = providers().requests.length;

        const answer = await ask({ agent_id: agent.id, query: QUESTION });
        expect(answer.status).toBe(200);
        const body = json(answer);
        expect(body.response).toContain(expected);
        expect(body.metadata).toMatchObject({ billed_to: 'model_key', model_key_id: modelKey.id });
        expect(body.metadata.tokens_input).toBe(provider === 'anthropic' ? 398 : 412);
        // Grounded as the offline answer is: the Anthropic answer restates its source; the
        // OpenAI-shaped one adds "Enterprise contracts are refunded pro rata", which nothing says.
        if (provider === 'anthropic') expect(body.metadata.groundedness).toBe(1);
        else expect(body.metadata.groundedness).toBeLessThan(1);

        const streamed = await ask(
          { agent_id: agent.id, query: QUESTION, stream: true },
          '/api/chat',
        );
        expect(streamed.status).toBe(200);
        expect(streamed.headers.get('content-type')).toMatch(/^text\/event-stream/);
        const events = parseEventStream(streamed.text);
        expect(events[0]?.event).toBe('sources');
        expect(events.filter((event) => event.event === 'delta').length).toBeGreaterThanOrEqual(2);
        const done = events.at(-1);
        expect(done?.event).toBe('done');
        expect(done?.data.metadata).toMatchObject({
          billed_to: 'model_key',
          model_key_id: modelKey.id,
        });

        // The provider got the organization's key, on its own wire format.
        const calls = providers().requests.slice(before);
        expect(calls).toHaveLength(2);
        for (const call of calls) {
          if (provider === 'anthropic') {
            expect(call.path).toBe('/anthropic/v1/messages');
            const sent =
              call.headers['x-api-key'] ?? call.headers.authorization?.replace(/^Bearer /, '');
            expect(sent).toBe(ANTHROPIC_KEY);
            expect(call.headers['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
            expect(call.body).toMatchObject({ model, stream: true, max_tokens: 1024 });
            expect(call.body.system).toContain('cite the sources');
          } else {
            expect(call.path).toBe(
              provider === 'custom' ? '/custom/v1/chat/completions' : '/openai/v1/chat/completions',
            );
            expect(call.headers.authorization).toBe(`Bearer ${keyOf().key}`);
            expect(call.body).toMatchObject({ model, stream: true });
          }
        }
        // The interaction says who paid.
        const interactions = json(
          await api(service().url, `/api/v1/interactions?agent_id=${agent.id}`, {
            key: service().adminKey,
          }),
        );
        for (const item of interactions.interactions) {
          expect(item).toMatchObject({ billed_to: 'model_key', model_key_id: modelKey.id });
        }
      },
    );

    it('reports costs billed to the key apart from the service’s (P131)', async () => {
      const modelKey = await registered({ provider: 'openai', key: OPENAI_KEY });
      const agent = await createAgent(service(), service().adminKey, {
        name: 'Costed',
        data_source_ids: [sourceId()],
        model: 'gpt-4o-mini',
        model_key_id: modelKey.id,
      });
      expect((await ask({ agent_id: agent.id, query: QUESTION })).status).toBe(200);
      const today = clock.now().toISOString().slice(0, 10);
      const analytics = json(
        await api(
          service().url,
          `/api/v1/analytics?start_date=${today}&end_date=${today}&agent_id=${agent.id}`,
          {
            key: service().adminKey,
          },
        ),
      );
      // gpt-4o-mini-2024-07-18 at $0.15/$0.60 per million: 412 in, 27 out.
      expect(analytics.metrics.model_key_cost_usd).toBeCloseTo((412 * 0.15 + 27 * 0.6) / 1e6, 9);
      expect(analytics.metrics.model_key_queries).toBe(1);
      expect(analytics.metrics.total_cost_usd).toBe(0);
    });

    it.each([
      ['revoked', 424, 'model_provider_refused'],
      ['bad_request', 400, 'invalid_request'],
      ['rate_limited', 429, 'rate_limit_exceeded'],
      ['down', 503, 'service_unavailable'],
    ] as const)(
      'maps a provider that answers %s to %d, never 500 (P134)',
      async (mode, status, code) => {
        for (const [provider, model, key] of [
          ['openai', 'gpt-4o-mini', OPENAI_KEY],
          ['anthropic', 'claude-sonnet-5-5', ANTHROPIC_KEY],
        ] as const) {
          providers().mode = 'ok';
          const modelKey = await registered({ provider, key });
          const agent = await createAgent(service(), service().adminKey, {
            name: `${provider} ${mode}`,
            data_source_ids: [sourceId()],
            model,
            model_key_id: modelKey.id,
          });
          providers().mode = mode;
          const response = await ask({ agent_id: agent.id, query: QUESTION });
          if (response.status !== status) throw new Error(`${mode} ${provider}: ${response.text}`);
          const error = expectNestedError(response, status, code);
          expect(error.message).not.toContain(key);
          if (mode === 'rate_limited') expect(response.headers.get('retry-after')).toBe('7');
          if (mode === 'revoked')
            expect(error.message).toMatch(/invalid x-api-key|Incorrect API key/);
          // Streamed: the same failure as the stream's error event.
          const streamed = await ask({ agent_id: agent.id, query: QUESTION, stream: true });
          const last = parseEventStream(streamed.text).at(-1);
          expect(last?.event).toBe('error');
          expect(last?.data.error.code).toBe(code);
        }
      },
    );

    it('reports a stream the provider breaks off as 503 in the stream', async () => {
      for (const [provider, model, key] of [
        ['openai', 'gpt-4o-mini', OPENAI_KEY],
        ['anthropic', 'claude-sonnet-5-5', ANTHROPIC_KEY],
      ] as const) {
        const modelKey = await registered({ provider, key });
        const agent = await createAgent(service(), service().adminKey, {
          name: `${provider} broken`,
          data_source_ids: [sourceId()],
          model,
          model_key_id: modelKey.id,
        });
        providers().mode = 'broken_stream';
        const streamed = await ask({ agent_id: agent.id, query: QUESTION, stream: true });
        const events = parseEventStream(streamed.text);
        expect(events.some((event) => event.event === 'delta')).toBe(true);
        expect(events.at(-1)?.data.error.code).toBe('service_unavailable');
        providers().mode = 'ok';
      }
    });
  });

  describe('sealed keys stay in their row (D33 encryption context)', () => {
    const moveSealedKey = async (
      from: { orgId: string; id: string },
      to: { orgId: string; id: string },
    ) => {
      const source = await service().runtime.dependencies.modelKeys.getSealed(from.orgId, from.id);
      await service().runtime.client.send(
        new UpdateCommand({
          TableName: 'svc',
          Key: { PK: keys.orgPartition(to.orgId), SK: `${keys.modelKeyPrefix}${to.id}` },
          UpdateExpression: 'SET sealed_key = :sealed',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':sealed': source?.sealedKey },
        }),
      );
    };

    it('refuses a ciphertext moved to another row or organization, and never sends it', async () => {
      const victim = await registered({ provider: 'openai', key: OPENAI_KEY });
      const target = await registered({
        provider: 'custom',
        key: CUSTOM_KEY,
        endpoint: providers().customUrl,
      });
      const agent = await createAgent(service(), service().adminKey, {
        name: 'Swapped',
        data_source_ids: [sourceId()],
        model: 'gpt-4o-mini',
        model_key_id: target.id,
      });
      // Another organization's key, registered through its own admin key.
      const other = await createTenant(service());
      const foreign = json(
        await api(service().url, '/api/v1/model-keys', {
          method: 'POST',
          key: other.key,
          body: {
            provider: 'custom',
            key: 'foreign-org-key-0000000000000000',
            endpoint: providers().customUrl,
          },
        }),
      );

      for (const from of [
        { orgId: service().orgId, id: victim.id },
        { orgId: other.orgId, id: foreign.id },
      ]) {
        await moveSealedKey(from, { orgId: service().orgId, id: target.id });
        const before = providers().requests.length;
        const response = await ask({ agent_id: agent.id, query: QUESTION });
        const error = expectNestedError(response, 424, 'model_provider_refused');
        expect(error.details.reason).toBe('model_key_unreadable');
        expect(providers().requests.length).toBe(before);
      }
      // And the other way: this organization's sealed key in the other's row.
      await moveSealedKey(
        { orgId: service().orgId, id: victim.id },
        { orgId: other.orgId, id: foreign.id },
      );
      const opened = service().runtime.dependencies.secretSealer.open(
        (await service().runtime.dependencies.modelKeys.getSealed(other.orgId, foreign.id))
          ?.sealedKey ?? '',
        { org_id: other.orgId, secret_id: foreign.id, purpose: 'model-key' },
      );
      await expect(opened).rejects.toThrow(/encryption context/);
    });
  });

  describe('the agents of a key (P282)', () => {
    it('lists each key with the agents that answer with it, by name, and no others', async () => {
      const used = await registered({ provider: 'openai', key: OPENAI_KEY });
      const unused = await registered({ provider: 'anthropic', key: ANTHROPIC_KEY });
      const billing = await createAgent(service(), service().adminKey, {
        name: 'Billing bot',
        data_source_ids: [sourceId()],
        model: 'gpt-4o-mini',
        model_key_id: used.id,
      });
      const returns = await createAgent(service(), service().adminKey, {
        name: 'Returns helper',
        data_source_ids: [sourceId()],
        model: 'gpt-4o-mini',
        model_key_id: used.id,
      });
      // On the service's model: not a user of any key.
      await createAgent(service(), service().adminKey, {
        name: 'Plain',
        data_source_ids: [sourceId()],
      });

      const list = json(
        await api(service().url, '/api/v1/model-keys?limit=100', {
          key: service().adminKey,
        }),
      ).model_keys as Array<{ id: string; agents: unknown }>;
      const got = json(
        await api(service().url, `/api/v1/model-keys/${used.id}`, { key: service().adminKey }),
      );

      const expected = [
        { id: billing.id, name: 'Billing bot' },
        { id: returns.id, name: 'Returns helper' },
      ];
      expect(list.find((key) => key.id === used.id)?.agents).toEqual(expected);
      expect(list.find((key) => key.id === unused.id)?.agents).toEqual([]);
      expect(got.agents).toEqual(expected);

      // A refused delete names them (P135 ids, P282 names).
      const refused = await api(service().url, `/api/v1/model-keys/${used.id}`, {
        method: 'DELETE',
        key: service().adminKey,
      });
      const error = expectNestedError(refused, 409, 'invalid_request');
      expect(error.details.agents).toEqual(expected);
      expect(error.details.agent_ids).toEqual([billing.id, returns.id]);
      expect(error.message).toContain('Billing bot and Returns helper');
    });
  });

  itNeverLogsAKey();
});
