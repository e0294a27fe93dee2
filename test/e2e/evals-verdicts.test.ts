import { NO_ANSWER_TEXT } from '../../layers/core/domain/no-answer';
import { createAgent } from '../support/fixtures';
import { api, json } from '../support/http-client';
import { startTestService, type TestService } from '../support/local-service';
import { helpCenterPages, type LoopbackSite, startLoopbackSite } from '../support/loopback-site';
import { indexWebsite } from '../support/sync';

/**
 * Right/wrong verdicts over HTTP: a run whose answers are all well supported
 * by what they cite, yet two of them wrong, and the pass rate that says so
 * where answer support cannot.
 */
describe('Evaluation verdicts', () => {
  let service: TestService;
  let site: LoopbackSite;
  let run: Record<string, any>;

  beforeAll(async () => {
    [service, site] = await Promise.all([
      startTestService({ env: { SVC_ALLOW_PRIVATE_URLS: 'true' } }),
      startLoopbackSite(helpCenterPages),
    ]);
    const sourceId = (await indexWebsite(service, service.adminKey, site.url('/'))).source.id;
    const agentId = (
      await createAgent(service, service.adminKey, { name: 'Help', data_source_ids: [sourceId] })
    ).id;
    const started = await api(service.url, '/api/v1/evals', {
      method: 'POST',
      key: service.adminKey,
      body: {
        agent_id: agentId,
        questions: [
          // The answer quotes the warranty page (fully supported) but the expected figure differs.
          {
            question: 'How long is the warranty?',
            expected_answer: 'Every Acme widget carries a five year warranty.',
            expected_sources: [site.url('/warranty')],
          },
          {
            question: 'How long is the warranty?',
            expected_answer: 'a two year warranty',
            expected_sources: [site.url('/warranty')],
          },
          { question: 'Can gift cards be refunded?', expected_sources: [site.url('/shipping')] },
          { question: 'What is the capital of Mongolia?', expected_answer: NO_ANSWER_TEXT },
        ],
      },
    });
    expect(started.status).toBe(202);
    await service.runtime.workers.stepEvaluations();
    const read = await api(service.url, `/api/v1/evals/${json(started).id}`, {
      key: service.adminKey,
    });
    expect(read.status).toBe(200);
    run = json(read);
  });
  afterAll(async () => {
    await service.end();
    await site.close();
  });

  it('calls a fully supported answer with the wrong figure wrong, saying why', () => {
    const [wrongFigure] = run.results;

    expect(wrongFigure.result.metrics.answer_support).toBe(1);
    expect(wrongFigure.verdict.outcome).toBe('wrong');
    expect(wrongFigure.verdict.checks).toEqual([
      {
        check: 'expected_answer',
        passed: false,
        reason: expect.stringMatching(/^The answer lacks “five”, which the expected answer states/),
      },
      { check: 'expected_sources', passed: true, reason: expect.any(String) },
    ]);
  });

  it('says when the expected document was not cited, and when giving up was right', () => {
    const [, right, uncited, mongolia] = run.results;

    expect(right.verdict.outcome).toBe('right');
    expect(uncited.verdict).toEqual({
      outcome: 'wrong',
      checks: [
        {
          check: 'expected_sources',
          passed: false,
          reason: `It cites none of the expected sources (“${site.url('/shipping')}”).`,
        },
      ],
    });
    expect(mongolia.verdict).toEqual({
      outcome: 'right',
      checks: [
        {
          check: 'answered',
          passed: true,
          reason: 'The agent said it could not answer, as expected.',
        },
      ],
    });
  });

  it('totals a pass rate over the judged questions, beside a perfect answer support', () => {
    expect(run.totals).toMatchObject({ judged: 4, right: 2, pass_rate: 0.5, answer_support: 1 });
  });
});
