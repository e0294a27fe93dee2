import { ALL_AGENTS } from '../../domain/agent-access';
import type { Environment } from '../../domain/environments';
import { AppError, ServiceUnavailableError } from '../../domain/errors';
import type {
  Evaluation,
  EvaluationAsker,
  EvaluationItem,
  EvaluationRunMessage,
  QuestionResult,
} from '../../domain/evaluation';
import {
  distinctDocuments,
  documentKey,
  evaluationTotals,
  roundedMetrics,
  scoreAnswer,
} from '../../domain/evaluation-metrics';
import { judgeQuestion, passRate } from '../../domain/evaluation-verdict';
import type { DomainEvent } from '../../domain/events';
import { PLAN_LIMITS } from '../../domain/plans';
import type { Principal } from '../../domain/principal';
import type { EvaluationRepository } from '../../ports/evaluation-repository.port';
import type { OrganizationRepository } from '../../ports/organization-repository.port';
import type { DailyUsage } from '../../ports/rate-limiter.port';
import { domainEvent } from '../events/domain-events';
import {
  answerQuery,
  NO_SOURCES_ANSWER,
  type QueryDependencies,
  type QueryResult,
} from '../query/answer-query';

export interface RunEvaluationDependencies extends QueryDependencies {
  readonly environment: Environment;
  readonly evaluations: EvaluationRepository;
  readonly organizations: Pick<OrganizationRepository, 'get'>;
  /** Each question is counted and settled as a query is. */
  readonly dailyUsage: Pick<DailyUsage, 'addTokens' | 'countRequest'>;
  /** The console's origin, when it is not the API's (links to uploaded files are made absolute with it). */
  readonly consoleOrigin?: string | undefined;
  /** The API's public address, when configured; neither known: file links stay relative to the API. */
  readonly publicBaseUrl?: () => string | undefined;
}

export type RunOutcome =
  /** The run has ended (now, or before this message). */
  | { readonly outcome: 'ended'; readonly evaluation: Evaluation | null }
  /** `pause()` asked to stop between questions: send the message again to go on. */
  | { readonly outcome: 'paused'; readonly completed: number };

/** Questions read from the table at a time. */
const READ_PAGE = 100;

/** The principal the run asks as, rebuilt from who started it. */
export function principalOf(
  orgId: string,
  asker: EvaluationAsker,
  environment: Environment,
): Principal {
  if (asker.kind === 'api_key') {
    return { kind: 'api_key', orgId, keyId: asker.key_id, scopes: ['Execute'], environment };
  }
  return {
    kind: 'session',
    orgId,
    userId: asker.user_id,
    role: asker.role,
    agents:
      asker.agent_ids === null ? ALL_AGENTS : { kind: 'only', agentIds: new Set(asker.agent_ids) },
    groupIds: asker.group_ids,
    // No sign-in is behind a run: the query use case reads neither.
    sessionId: '',
    authTime: 0,
  };
}

/** Spec, Events: `eval.completed`, "evaluation run finished": the run with its totals, never its questions. */
export function evaluationCompleted(orgId: string, evaluation: Evaluation, at: Date): DomainEvent {
  return domainEvent('eval.completed', orgId, { evaluation: { ...evaluation } }, at);
}

/** One question asked through the query use case, as an agent's query is. */
async function askQuestion(
  deps: RunEvaluationDependencies,
  principal: Principal,
  agentId: string,
  item: EvaluationItem,
): Promise<QuestionResult> {
  let retrieved: QueryResult['sources'] = [];
  let result: QueryResult | undefined;
  try {
    const linkOrigin = (deps.consoleOrigin ?? deps.publicBaseUrl?.() ?? '').replace(/\/+$/, '');
    for await (const event of answerQuery(
      deps,
      principal,
      { agent_id: agentId, query: item.question },
      { linkOrigin, channel: 'evaluation' },
    )) {
      if (event.type === 'sources') retrieved = event.sources;
      else if (event.type === 'done') result = event.result;
    }
  } catch (error) {
    // Our own outages come back as a retry of the message; refusals are this question's outcome.
    if (!(error instanceof AppError) || error instanceof ServiceUnavailableError) throw error;
    return {
      status: 'failed',
      interaction_id: null,
      response: null,
      sources: [],
      retrieved_documents: distinctDocuments(retrieved).map(documentKey),
      metrics: null,
      latency_ms: null,
      tokens_input: 0,
      tokens_output: 0,
      cost_usd: 0,
      billed_to: null,
      error: { code: error.code, message: error.message },
      answered_at: deps.clock.now().toISOString(),
    };
  }
  if (!result) throw new Error('The query ended without a result');
  const metrics = scoreAnswer({
    response: result.response,
    retrieved,
    cited: result.sources,
    expectedSources: item.expected_sources,
    expectedAnswer: item.expected_answer,
    noSourcesAnswer: NO_SOURCES_ANSWER,
  });
  return {
    status: 'answered',
    interaction_id: result.metadata.interaction_id,
    response: result.response,
    // Without their text, so without the ranges of it the answer quoted either.
    sources: result.sources.map((source) => ({
      chunk_id: source.chunk_id,
      document_id: source.document_id,
      data_source_id: source.data_source_id,
      document_title: source.document_title,
      document_url: source.document_url,
      similarity_score: source.similarity_score,
    })),
    retrieved_documents: distinctDocuments(retrieved).map(documentKey),
    metrics: roundedMetrics(metrics),
    latency_ms: result.metadata.latency_ms,
    tokens_input: result.metadata.tokens_input,
    tokens_output: result.metadata.tokens_output,
    cost_usd: result.metadata.cost_usd,
    billed_to: result.metadata.billed_to,
    error: null,
    answered_at: deps.clock.now().toISOString(),
  };
}

async function allItems(
  deps: RunEvaluationDependencies,
  orgId: string,
  evaluation: Evaluation,
): Promise<EvaluationItem[]> {
  const items: EvaluationItem[] = [];
  for (let offset = 0; offset < evaluation.question_count; offset += READ_PAGE) {
    items.push(
      ...(await deps.evaluations.items(orgId, evaluation.id, { limit: READ_PAGE, offset })),
    );
  }
  return items;
}

/** Ends the run with its totals (over every question, answered or not) and its event. */
export async function endEvaluation(
  deps: Pick<RunEvaluationDependencies, 'evaluations' | 'clock'>,
  orgId: string,
  evaluation: Evaluation,
  items: readonly EvaluationItem[],
  error: Evaluation['error'],
): Promise<Evaluation | null> {
  const at = deps.clock.now();
  const totals = {
    ...evaluationTotals(items),
    ...passRate(items.map((item) => judgeQuestion(item, item.result, NO_SOURCES_ANSWER))),
  };
  const status = error ? 'failed' : 'completed';
  const completed = items.filter((item) => item.result !== null).length;
  const ended: Evaluation = {
    ...evaluation,
    status,
    totals,
    error,
    completed_count: completed,
    completed_at: at.toISOString(),
  };
  return deps.evaluations.finish(orgId, evaluation.id, {
    status,
    totals,
    error,
    completed,
    at: ended.completed_at ?? at.toISOString(),
    events: [evaluationCompleted(orgId, ended, at)],
  });
}

/**
 * Runs (or resumes) an evaluation: asks every question that has no result
 * yet, in order, through the query use case — so each is an interaction,
 * billed, counted in analytics and settled against the plan's tokens/day
 * like any query — scores it (docs/evaluations.md) and records its
 * result once; then ends the run with its totals and
 * `eval.completed`. Before each question the organization's daily caps
 * are checked as a query's are: a reached cap ends the run `failed`, with
 * the results so far. `pause` is asked between questions (the Lambda
 * deadline).
 */
export async function runEvaluation(
  deps: RunEvaluationDependencies,
  message: EvaluationRunMessage,
  pause: () => boolean = () => false,
): Promise<RunOutcome> {
  const orgId = message.org_id;
  const found = await deps.evaluations.get(orgId, message.eval_id);
  if (!found || found.status === 'completed' || found.status === 'failed') {
    return { outcome: 'ended', evaluation: found };
  }
  const evaluation =
    found.status === 'queued'
      ? ((await deps.evaluations.markRunning(orgId, found.id, deps.clock.now().toISOString())) ??
        found)
      : found;
  const asker = await deps.evaluations.askerOf(orgId, evaluation.id);
  const organization = await deps.organizations.get(orgId);
  if (!asker || !organization) {
    return {
      outcome: 'ended',
      evaluation: await endEvaluation(
        deps,
        orgId,
        evaluation,
        await allItems(deps, orgId, evaluation),
        { code: 'not_found', message: 'The organization no longer exists' },
      ),
    };
  }
  const principal = principalOf(orgId, asker, deps.environment);
  const limits = PLAN_LIMITS[organization.plan];
  const caps = { requestsPerDay: limits.requestsPerDay, tokensPerDay: limits.tokensPerDay };

  const items = await allItems(deps, orgId, evaluation);
  let completed = items.filter((item) => item.result !== null).length;
  for (const [position, item] of items.entries()) {
    if (item.result !== null) continue;
    if (pause()) return { outcome: 'paused', completed };
    if (caps.requestsPerDay !== null || caps.tokensPerDay !== null) {
      const daily = await deps.dailyUsage.countRequest(orgId, caps, deps.clock.now().getTime());
      if (!daily.allowed) {
        const reason = daily.exceeded === 'requests' ? 'daily_requests' : 'daily_tokens';
        const ended = await endEvaluation(deps, orgId, evaluation, items, {
          code: reason,
          message: `The organization's ${daily.exceeded}/day limit (${daily.limit}) was reached after ${completed} of ${items.length} questions`,
        });
        return { outcome: 'ended', evaluation: ended };
      }
    }
    const result = await askQuestion(deps, principal, evaluation.agent_id, item);
    completed += 1;
    const recorded = await deps.evaluations.recordResult(
      orgId,
      evaluation.id,
      item.index,
      result,
      completed,
    );
    // Another delivery recorded it first: its result stands.
    items[position] = recorded
      ? { ...item, result }
      : ((
          await deps.evaluations.items(orgId, evaluation.id, { limit: 1, offset: item.index })
        )[0] ?? item);
  }
  return {
    outcome: 'ended',
    evaluation: await endEvaluation(deps, orgId, evaluation, items, null),
  };
}
