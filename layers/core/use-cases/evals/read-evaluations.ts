import { type AgentAccess, mayUseAgent, usableBy } from '../../domain/agent-access';
import { NotFoundError } from '../../domain/errors';
import type { Evaluation, EvaluationItem } from '../../domain/evaluation';
import { judgeQuestion, type QuestionVerdict } from '../../domain/evaluation-verdict';
import { NO_SOURCES_ANSWER } from '../../domain/no-answer';
import { type Page, type PageRequest, pageOf } from '../../domain/pagination';
import type { EvaluationRepository } from '../../ports/evaluation-repository.port';

export interface ReadEvaluationDependencies {
  readonly evaluations: Pick<EvaluationRepository, 'get' | 'list' | 'items'>;
}

export interface EvaluationFilter {
  /** One agent's runs only; `null`: every agent's. */
  readonly agentId: string | null;
}

/**
 * `GET /api/v1/evals`: the organization's runs, newest first, without their
 * questions, all or one agent's; a user whose groups restrict their
 * agents sees the runs of those agents only, so naming another agent
 * lists nothing, as the interactions' filter does.
 */
export async function listEvaluations(
  deps: ReadEvaluationDependencies,
  orgId: string,
  page: PageRequest,
  access: AgentAccess,
  filter: EvaluationFilter = { agentId: null },
): Promise<Page<Evaluation>> {
  if (access.kind === 'all' && filter.agentId === null) return deps.evaluations.list(orgId, page);
  // The repository reads every run of the organization for a page anyway (runs are few and small).
  const all = await deps.evaluations.list(orgId, { limit: Number.MAX_SAFE_INTEGER, offset: 0 });
  const usable = usableBy(access, all.items, (evaluation) => evaluation.agent_id);
  return pageOf(
    filter.agentId === null
      ? usable
      : usable.filter((evaluation) => evaluation.agent_id === filter.agentId),
    page,
  );
}

/**
 * `GET /api/v1/evals/:id`: the run, its totals and one page of its
 * per-question results (`limit`/`offset` page the results), each with its
 * right/wrong verdict (judged as it is read, so runs scored before verdicts
 * existed have them too). Another organization's run is not found, as its
 * agents are.
 */
export async function getEvaluation(
  deps: ReadEvaluationDependencies,
  orgId: string,
  id: string,
  page: PageRequest,
  access: AgentAccess,
): Promise<{
  evaluation: Evaluation;
  results: Array<EvaluationItem & { readonly verdict: QuestionVerdict | null }>;
}> {
  const evaluation = await deps.evaluations.get(orgId, id);
  if (!evaluation || !mayUseAgent(access, evaluation.agent_id))
    throw new NotFoundError(`No evaluation ${id}`);
  const results =
    page.offset >= evaluation.question_count
      ? []
      : await deps.evaluations.items(orgId, id, {
          offset: page.offset,
          limit: Math.min(page.limit, evaluation.question_count - page.offset),
        });
  return {
    evaluation,
    results: results.map((item) => ({
      ...item,
      verdict: judgeQuestion(item, item.result, NO_SOURCES_ANSWER),
    })),
  };
}
