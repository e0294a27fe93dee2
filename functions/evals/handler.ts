import { agentAccessOf } from '../../layers/core/domain/principal';
import { httpFunction } from '../../layers/core/http/http-function';
import { operationsWith } from '../../layers/core/http/operation';
import { pageRequest } from '../../layers/core/http/pagination.schema';
import { jsonResponse } from '../../layers/core/http/responses';
import { EVALS_ROUTES } from '../../layers/core/http/routes/evals';
import { getEvaluation, listEvaluations } from '../../layers/core/use-cases/evals/read-evaluations';
import { startEvaluation } from '../../layers/core/use-cases/evals/start-evaluation';
import {
  createEvaluationBody,
  evaluationList,
  evaluationResource,
  evaluationWithResults,
  getEvaluationQuery,
  listEvaluationsQuery,
} from './evaluation.schema';
import { dependencies, type EvalsDependencies } from './wiring';

const operation = operationsWith<EvalsDependencies>();

/**
 * Evaluations (issue 11 item 5): start a run, list runs, read one with its
 * totals and per-question results. The run itself happens in the eval
 * worker (functions/eval-worker): this function never carries the query
 * pipeline (test/infra/function-bundles.test.ts).
 */
export const operations = {
  listEvaluations: operation({
    summary:
      "List the organization's evaluation runs (newest first, without their questions), or one agent's (agent_id)",
    query: listEvaluationsQuery,
    responses: { 200: { description: 'A page of evaluation runs', schema: evaluationList } },
    async handle({ query, principal, deps }) {
      const page = pageRequest(query);
      const result = await listEvaluations(deps, principal.orgId, page, agentAccessOf(principal), {
        agentId: query.agent_id ?? null,
      });
      return jsonResponse(200, { evals: result.items, total: result.total, ...page });
    },
  }),
  startEvaluation: operation({
    summary:
      'Run an agent over a question set (given, or built from its rated interactions) as a background job; eval.completed fires when it ends',
    body: createEvaluationBody,
    responses: {
      202: {
        description:
          'The run, queued (poll GET /api/v1/evals/{id}, or subscribe to eval.completed)',
        schema: evaluationResource,
      },
    },
    async handle({ body, principal, deps }) {
      return jsonResponse(202, await startEvaluation(deps, principal, body));
    },
  }),
  getEvaluation: operation({
    summary:
      'Get an evaluation run: status, totals, and a page of per-question results (limit/offset page the results)',
    pathIds: { id: 'evaluation' },
    query: getEvaluationQuery,
    responses: {
      200: { description: 'The run with a page of its results', schema: evaluationWithResults },
    },
    async handle({ params, query, principal, deps }) {
      const page = pageRequest(query);
      const { evaluation, results } = await getEvaluation(
        deps,
        principal.orgId,
        params.id ?? '',
        page,
        agentAccessOf(principal),
      );
      return jsonResponse(200, { ...evaluation, results, ...page });
    },
  }),
};

export const handler = httpFunction({
  family: 'evals',
  routes: EVALS_ROUTES,
  operations,
  dependencies,
});
