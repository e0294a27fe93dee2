import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runEvaluation } from '../../layers/core/use-cases/evals/run-evaluation';
import { expectNestedError } from '../support/error-shapes';
import { createAgent } from '../support/fixtures';
import { api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { helpCenterPages, type LoopbackSite, startLoopbackSite } from '../support/loopback-site';
import { indexWebsite } from '../support/sync';
import { createKey, createTenant, type TestKey } from '../support/tenants';
import { REFILL_ALL_BUCKETS_MS, TestClock } from '../support/test-clock';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import { createWebhook, LOCAL_RECEIVERS_ENV, step } from '../support/webhooks';

/**
 * Evaluations end to end (issue 11 item 5): a help center crawled from a
 * loopback site, answered by the offline extractive answerer (D20), runs
 * started over HTTP and run by the real eval worker off the local queue,
 * metrics checked against values worked out by hand from
 * docs/evaluations.md, and `eval.completed` delivered to a loopback
 * receiver. v1 only: the spec has no legacy path for evaluations.
 */
describe('Evaluations', () => {
  const clock = new TestClock();
  let service: TestService;
  let site: LoopbackSite;
  let receiver: WebhookReceiver;
  let sourceId: string;
  let agentId: string;

  const send = (path: string, options: { method?: string; body?: unknown; key?: string } = {}) =>
    api(service.url, path, { key: service.adminKey, ...options });
  const start = async (body: Record<string, unknown>, key?: string) => {
    const response = await send('/api/v1/evals', { method: 'POST', body, ...(key ? { key } : {}) });
    expect({ status: response.status, body: response.body }).toMatchObject({ status: 202 });
    return json(response);
  };
  const read = async (id: string, query = '') => {
    const response = await send(`/api/v1/evals/${id}${query}`);
    expect(response.status).toBe(200);
    return json(response);
  };
  const interactionsOf = async (agent: string) =>
    json(await send(`/api/v1/interactions?agent_id=${agent}&limit=200`)).interactions as Array<
      Record<string, any>
    >;

  beforeAll(async () => {
    [service, site, receiver] = await Promise.all([
      startTestService({ env: { ...LOCAL_RECEIVERS_ENV }, clock }),
      startLoopbackSite(helpCenterPages),
      startWebhookReceiver(),
    ]);
    sourceId = (await indexWebsite(service, service.adminKey, site.url('/'))).source.id;
    agentId = (
      await createAgent(service, service.adminKey, { name: 'Help', data_source_ids: [sourceId] })
    ).id;
    await createWebhook(service, service.adminKey, {
      url: receiver.url(),
      events: ['eval.completed'],
    });
  });
  afterAll(async () => {
    await service.end();
    await site.close();
    await receiver.close();
  });
  beforeEach(() => clock.advance(REFILL_ALL_BUCKETS_MS));

  describe('a run over a given set', () => {
    let run: Record<string, any>;
    let created: Record<string, any>;

    beforeAll(async () => {
      clock.advance(REFILL_ALL_BUCKETS_MS);
      created = await start({
        agent_id: agentId,
        name: 'Help center smoke',
        questions: [
          {
            question: 'How long is the warranty?',
            expected_sources: [site.url('/warranty')],
            expected_answer: 'Every Acme widget carries a two year warranty.',
          },
          {
            question: 'Can gift cards be refunded?',
            // Shipping is named but does not hold the answer: recall can only reach 1/2.
            expected_sources: ['Returns policy', site.url('/shipping')],
          },
          { question: 'What is the capital of Mongolia?' },
        ],
      });
      await service.runtime.workers.stepEvaluations();
      run = await read(created.id);
    });

    it('answers 202 with the queued run, then runs it in the background', () => {
      expect(created).toMatchObject({
        id: expect.stringMatching(/^eval_[0-9a-z]{26}$/),
        name: 'Help center smoke',
        agent_id: agentId,
        status: 'queued',
        question_count: 3,
        completed_count: 0,
        source: { type: 'questions' },
        totals: null,
        error: null,
        started_at: null,
        completed_at: null,
      });
      expect(run).toMatchObject({
        status: 'completed',
        completed_count: 3,
        error: null,
        started_at: expect.any(String),
        completed_at: expect.any(String),
        limit: 50,
        offset: 0,
      });
      expect(run.results.map((item: Record<string, any>) => item.index)).toEqual([0, 1, 2]);
    });

    it('scores each question as worked out by hand', () => {
      const [warranty, giftCards, mongolia] = run.results.map(
        (item: Record<string, any>) => item.result,
      );
      // Q1: the answer quotes the warranty page once [1], and no other page.
      expect(warranty.response).toBe(
        'Every Acme widget carries a two year warranty against manufacturing defects. [1]',
      );
      expect(warranty.sources.map((source: Record<string, any>) => source.document_url)).toEqual([
        site.url('/warranty'),
      ]);
      expect(warranty.metrics).toEqual({
        retrieval_recall: 1, // the one expected page was retrieved
        citation_recall: 1, // and cited
        citation_precision: 1, // the one cited page is the expected one
        answer_support: 1, // 1 quoted sentence, wholly in its chunk
        answer_sentences: 1,
        supported_sentences: 1,
        // Expected: everi acm widget carri two year warranti (7 terms); the answer's 10 terms
        // (those and against manufactur defect) hold all 7: P = 7/10, R = 1, F1 = 1.4/1.7 = 0.8235.
        answer_f1: 0.8235,
        no_answer: false,
      });
      // Q2: one quote from "Returns policy" (named by title); shipping retrieved but not cited.
      expect(giftCards.response).toBe('Gift cards cannot be refunded or exchanged for cash. [1]');
      expect(giftCards.retrieved_documents).toContain(site.url('/shipping'));
      expect(giftCards.metrics).toEqual({
        retrieval_recall: 1,
        citation_recall: 0.5,
        citation_precision: 1,
        answer_support: 1,
        answer_sentences: 1,
        supported_sentences: 1,
        answer_f1: null,
        no_answer: false,
      });
      // Q3: the honest non-answer: nothing to score but the fact.
      expect(mongolia.metrics).toEqual({
        retrieval_recall: null,
        citation_recall: null,
        citation_precision: null,
        answer_support: null,
        answer_sentences: 0,
        supported_sentences: 0,
        answer_f1: null,
        no_answer: true,
      });
    });

    it('gives each question a verdict with its reasons, and no verdict without expectations', () => {
      const [warranty, giftCards, mongolia] = run.results.map(
        (item: Record<string, any>) => item.verdict,
      );

      expect(warranty).toEqual({
        outcome: 'right',
        checks: [
          {
            check: 'expected_answer',
            passed: true,
            reason: 'The answer contains the expected answer.',
          },
          {
            check: 'expected_sources',
            passed: true,
            reason: `It cites “${site.url('/warranty')}”, an expected source.`,
          },
        ],
      });
      expect(giftCards).toEqual({
        outcome: 'right',
        checks: [
          {
            check: 'expected_sources',
            passed: true,
            reason: 'It cites “Returns policy”, an expected source.',
          },
        ],
      });
      expect(mongolia).toEqual({ outcome: 'unjudged', checks: [] });
    });

    it('totals the run: macro means, micro support, nearest-rank latency, summed usage', () => {
      const results = run.results.map((item: Record<string, any>) => item.result);
      const latencies = results.map((result: Record<string, any>) => result.latency_ms);
      const sorted = [...latencies].sort((a, b) => a - b);
      expect(run.totals).toEqual({
        questions: 3,
        answered: 3,
        failed: 0,
        no_answer: 1,
        retrieval_recall: 1, // mean(1, 1)
        citation_precision: 1, // mean(1, 1)
        citation_recall: 0.75, // mean(1, 0.5)
        answer_support: 1, // (1 + 1) of (1 + 1) sentences
        answer_f1: 0.8235,
        // Nearest rank of 3: p50 is the 2nd, p95 the 3rd.
        latency_ms: { p50: sorted[1], p95: sorted[2] },
        // The warranty and gift-card answers are right; Mongolia expected nothing, so is not judged.
        judged: 2,
        right: 2,
        pass_rate: 1,
        tokens_input: results.reduce(
          (sum: number, r: Record<string, any>) => sum + r.tokens_input,
          0,
        ),
        tokens_output: results.reduce(
          (sum: number, r: Record<string, any>) => sum + r.tokens_output,
          0,
        ),
        cost_usd: 0, // the offline model is free
      });
    });

    it('asks each question as a query: an interaction of the agent, billed to the service (P139)', async () => {
      const recorded = await interactionsOf(agentId);
      for (const item of run.results) {
        const interaction = recorded.find((found) => found.id === item.result.interaction_id);
        expect(interaction).toMatchObject({
          query: item.question,
          response: item.result.response,
          key_id: expect.stringMatching(/^key_/),
          billed_to: 'service',
          channel: 'evaluation',
        });
      }
    });

    it('fires eval.completed through the outbox to the webhook, without the questions', async () => {
      await step(service);
      const receipts = receiver.receipts.filter(
        (receipt) => receipt.envelope.data?.evaluation?.id === created.id,
      );
      expect(receipts).toHaveLength(1);
      const envelope = receipts[0]?.envelope as Record<string, any>;
      expect(envelope).toMatchObject({ type: 'eval.completed', event: 'eval.completed' });
      const { results: _, limit: __, offset: ___, ...withoutResults } = run;
      expect(envelope.data).toEqual({ evaluation: withoutResults });
      expect(JSON.stringify(envelope)).not.toMatch(/Mongolia|gift cards/i);
      // The payload docs/webhooks.md shows comes from this run (SVC_WRITE_EVAL_PAYLOAD=1).
      if (process.env.SVC_WRITE_EVAL_PAYLOAD) {
        writeFileSync(
          join(tmpdir(), 'eval-completed.sample.json'),
          JSON.stringify(envelope, null, 2),
        );
      }
    });

    it('pages the results with limit and offset (P144)', async () => {
      const page = await read(created.id, '?limit=1&offset=1');
      expect(page.results.map((item: Record<string, any>) => item.index)).toEqual([1]);
      expect(page).toMatchObject({ limit: 1, offset: 1, question_count: 3 });
      expect((await read(created.id, '?offset=7')).results).toEqual([]);
      expectNestedError(await send(`/api/v1/evals/${created.id}?limit=0`), 400, 'invalid_request');
    });

    it('builds a set from rated interactions (P141)', async () => {
      const [warranty, giftCards] = run.results.map((item: Record<string, any>) => item.result);
      const rate = async (interaction: string, feedback: string) =>
        expect(
          (
            await send(`/api/v1/interactions/${interaction}/feedback`, {
              method: 'POST',
              body: { feedback },
            })
          ).status,
        ).toBe(200);
      await rate(warranty.interaction_id, 'positive');
      await rate(giftCards.interaction_id, 'negative');

      const built = await start({
        agent_id: agentId,
        from_interactions: { feedback: 'any' },
      });
      expect(built).toMatchObject({
        question_count: 2,
        source: {
          type: 'interactions',
          agent_id: agentId,
          feedback: 'any',
          since: null,
          limit: 100,
        },
      });
      await service.runtime.workers.stepEvaluations();
      const rerun = await read(built.id);
      // Newest first: the gift-card question (negative: no expectations), then the warranty one.
      expect(rerun.results).toMatchObject([
        {
          question: 'Can gift cards be refunded?',
          expected_answer: null,
          expected_sources: null,
          source_interaction_id: giftCards.interaction_id,
        },
        {
          question: 'How long is the warranty?',
          // Its answer (without its [n] markers, which numbered that answer's sources), and the
          // documents it cited, are what the positive rating vouched for.
          expected_answer:
            'Every Acme widget carries a two year warranty against manufacturing defects.',
          expected_sources: [site.url('/warranty')],
          source_interaction_id: warranty.interaction_id,
        },
      ]);
      // The same agent answers the same way: everything it cites is expected, and F1 is 1.
      expect(rerun.results[1].result.metrics).toMatchObject({
        retrieval_recall: 1,
        citation_precision: 1,
        citation_recall: 1,
        answer_f1: 1,
      });

      const positiveOnly = await start({
        agent_id: agentId,
        from_interactions: { feedback: 'positive', limit: 5 },
      });
      expect(positiveOnly.question_count).toBe(1);
      await service.runtime.workers.stepEvaluations();

      const tomorrow = new Date(clock.now().getTime() + 86_400_000).toISOString().slice(0, 10);
      const empty = await send('/api/v1/evals', {
        method: 'POST',
        body: { agent_id: agentId, from_interactions: { feedback: 'negative', since: tomorrow } },
      });
      expect(expectNestedError(empty, 400, 'invalid_request').details).toMatchObject({
        field: 'from_interactions',
      });
    });

    it('lists runs newest first, paginated like every list (D2)', async () => {
      const all = json(await send('/api/v1/evals'));
      expect(all).toMatchObject({ total: all.evals.length, limit: 50, offset: 0 });
      expect(all.evals.length).toBeGreaterThanOrEqual(3);
      expect(all.evals.at(-1).id).toBe(created.id);
      expect(all.evals[0]).not.toHaveProperty('results');
      expect(all.evals[0]).not.toHaveProperty('asker');
      const second = json(await send('/api/v1/evals?limit=1&offset=1'));
      expect(second.evals.map((e: Record<string, any>) => e.id)).toEqual([all.evals[1].id]);
      expectNestedError(await send('/api/v1/evals?limit=201'), 400, 'invalid_request');
    });

    it("lists one agent's runs with agent_id, paged after the filter (P294)", async () => {
      const other = (
        await createAgent(service, service.adminKey, {
          name: 'Help, second opinion',
          data_source_ids: [sourceId],
        })
      ).id;
      const first = await start({ agent_id: other, questions: [{ question: 'Shipping?' }] });
      const second = await start({ agent_id: other, questions: [{ question: 'Returns?' }] });
      await service.runtime.workers.stepEvaluations();
      await service.runtime.workers.stepEvaluations();

      const theirs = json(await send(`/api/v1/evals?agent_id=${other}`));
      expect(theirs.evals.map((e: Record<string, any>) => e.id)).toEqual([second.id, first.id]);
      expect(theirs).toMatchObject({ total: 2, limit: 50, offset: 0 });
      const paged = json(await send(`/api/v1/evals?agent_id=${other}&limit=1&offset=1`));
      expect(paged).toMatchObject({ total: 2, evals: [{ id: first.id }] });
      const ours = json(await send(`/api/v1/evals?agent_id=${agentId}`));
      expect(ours.evals.every((e: Record<string, any>) => e.agent_id === agentId)).toBe(true);
      expect(ours.total).toBe(json(await send('/api/v1/evals')).total - 2);
      expect(json(await send('/api/v1/evals?agent_id=agt_01m866ppy1drc0wzkkx93pgznf')).total).toBe(
        0,
      );
      expect(
        expectNestedError(await send('/api/v1/evals?agent_id=eval_x'), 400, 'invalid_request')
          .details,
      ).toMatchObject({ fields: [{ path: 'agent_id' }] });
    });
  });

  describe('refusals', () => {
    const question = { question: 'How long is the warranty?' };

    it.each([
      ['no agent', { agent_id: undefined, questions: [question] }, 'agent_id'],
      ['a malformed agent id', { agent_id: 'agent-1', questions: [question] }, 'agent_id'],
      ['neither questions nor from_interactions', {}, 'questions'],
      ['both', { questions: [question], from_interactions: { feedback: 'any' } }, 'questions'],
      ['an empty set', { questions: [] }, 'questions'],
      ['501 questions (P139)', { questions: Array(501).fill(question) }, 'questions'],
      [
        'a question over 4,000 characters (D17)',
        { questions: [{ question: 'x'.repeat(4_001) }] },
        'questions.0.question',
      ],
      ['a blank question', { questions: [{ question: '   ' }] }, 'questions.0.question'],
      [
        '21 expected sources',
        { questions: [{ ...question, expected_sources: Array(21).fill('a') }] },
        'questions.0.expected_sources',
      ],
      ['an unknown field', { questions: [{ ...question, weight: 2 }] }, 'questions.0'],
      [
        'a bad feedback filter',
        { from_interactions: { feedback: 'great' } },
        'from_interactions.feedback',
      ],
      ['a bad since', { from_interactions: { since: '2026-02-30' } }, 'from_interactions.since'],
      ['a limit over 500', { from_interactions: { limit: 501 } }, 'from_interactions.limit'],
    ])('refuses %s with 400 naming the field, and stores nothing', async (_, body, field) => {
      const before = json(await send('/api/v1/evals')).total;
      const response = await send('/api/v1/evals', {
        method: 'POST',
        body: { agent_id: agentId, ...body },
      });
      const error = expectNestedError(response, 400, 'invalid_request');
      expect(JSON.stringify(error.details)).toContain(field);
      expect(json(await send('/api/v1/evals')).total).toBe(before);
    });

    it('has no legacy path (the spec names none)', async () => {
      expect((await send('/api/evals')).status).toBe(404);
    });

    it('needs the Admin scope (D9) for reading and starting', async () => {
      const reader = await createKey(service, service.orgId, {
        scopes: ['Read', 'Write', 'Execute'],
      });
      for (const [method, path] of [
        ['GET', '/api/v1/evals'],
        ['POST', '/api/v1/evals'],
      ] as const) {
        const response = await send(path, {
          method,
          key: reader.key,
          ...(method === 'POST' ? { body: { agent_id: agentId, questions: [question] } } : {}),
        });
        expect(expectNestedError(response, 403, 'forbidden').details).toMatchObject({
          required_scope: 'Admin',
        });
      }
    });
  });

  describe('tenants', () => {
    let tenant: TestKey;
    let ours: string;

    beforeAll(async () => {
      tenant = await createTenant(service);
      ours = (await start({ agent_id: agentId, questions: [{ question: 'Shipping?' }] })).id;
    });

    it("answers another organization's run and agent as not found", async () => {
      expectNestedError(await send(`/api/v1/evals/${ours}`, { key: tenant.key }), 404, 'not_found');
      expect(json(await send('/api/v1/evals', { key: tenant.key })).total).toBe(0);
      expectNestedError(
        await send('/api/v1/evals', {
          method: 'POST',
          key: tenant.key,
          body: { agent_id: agentId, questions: [{ question: 'Shipping?' }] },
        }),
        404,
        'not_found',
      );
      expectNestedError(
        await send('/api/v1/evals/eval_01m866ppy1drc0wzkkx93pgznf'),
        404,
        'not_found',
      );
      expectNestedError(
        await send('/api/v1/evals/agt_01m866ppy1drc0wzkkx93pgznf'),
        400,
        'invalid_request',
      );
    });
  });

  describe('limits and resumption', () => {
    it("ends a run 'failed' when the plan's tokens/day run out, keeping the results so far (D16, P139)", async () => {
      const tenant = await createTenant(service, { plan: 'free' });
      const kb = json(await send('/api/v1/kb', { key: tenant.key })).data_source_id;
      const tenantAgent = (
        await createAgent(service, tenant.key, { name: 'Kb', data_source_ids: [kb] })
      ).id;
      const started = await start(
        { agent_id: tenantAgent, questions: [{ question: 'One?' }, { question: 'Two?' }] },
        tenant.key,
      );
      await service.runtime.dependencies.dailyUsage.addTokens(
        tenant.orgId,
        100_000,
        clock.now().getTime(),
      );
      await service.runtime.workers.stepEvaluations();

      const ended = json(await send(`/api/v1/evals/${started.id}`, { key: tenant.key }));
      expect(ended).toMatchObject({
        status: 'failed',
        completed_count: 0,
        error: { code: 'daily_tokens', message: expect.stringContaining('after 0 of 2 questions') },
        totals: { questions: 2, answered: 0, failed: 2, latency_ms: { p50: null, p95: null } },
      });
      expect(await interactionsOf(tenantAgent)).toHaveLength(0);
      // Starting another is refused like a query (the route spends tokens).
      const refused = await send('/api/v1/evals', {
        method: 'POST',
        key: tenant.key,
        body: { agent_id: tenantAgent, questions: [{ question: 'Three?' }] },
      });
      expect(expectNestedError(refused, 429, 'rate_limit_exceeded').details).toMatchObject({
        reason: 'daily_tokens',
      });
    });

    it('resumes a paused or redelivered run without asking any question twice (P142)', async () => {
      const fresh = (
        await createAgent(service, service.adminKey, {
          name: 'Resume',
          data_source_ids: [sourceId],
        })
      ).id;
      const started = await start({
        agent_id: fresh,
        questions: [
          { question: 'How long is the warranty?' },
          { question: 'How fast is express shipping?' },
          { question: 'Can gift cards be refunded?' },
        ],
      });
      // The first delivery stops after one question, as a Lambda near its deadline does.
      let asked = 0;
      const paused = await runEvaluation(
        service.runtime.dependencies,
        { org_id: service.orgId, eval_id: started.id },
        () => asked++ >= 1,
      );
      expect(paused).toEqual({ outcome: 'paused', completed: 1 });
      expect((await read(started.id)).completed_count).toBe(1);

      // The queued message and a duplicate of it (SQS delivers at least once).
      await service.runtime.dependencies.evaluationQueue.send({
        org_id: service.orgId,
        eval_id: started.id,
      });
      await service.runtime.workers.stepEvaluations();

      const ended = await read(started.id);
      expect(ended).toMatchObject({ status: 'completed', completed_count: 3 });
      const interactions = await interactionsOf(fresh);
      expect(interactions).toHaveLength(3);
      expect(new Set(interactions.map((interaction) => interaction.query)).size).toBe(3);
      expect(
        ended.results.map((item: Record<string, any>) => item.result.interaction_id).sort(),
      ).toEqual(interactions.map((interaction) => interaction.id).sort());
    });
  });
});
