import { mayUseAgent } from '../../domain/agent-access';
import { stripCitations } from '../../domain/citations';
import { InvalidRequestError, NotFoundError } from '../../domain/errors';
import {
  EVALUATION_LIMITS,
  type Evaluation,
  type EvaluationAsker,
  type EvaluationQuestion,
  type EvaluationRunMessage,
  type FromInteractionsFeedback,
} from '../../domain/evaluation';
import { distinctDocuments, documentKey } from '../../domain/evaluation-metrics';
import { newId } from '../../domain/ids';
import type { Interaction } from '../../domain/interaction';
import { agentAccessOf, type Principal } from '../../domain/principal';
import { isUploadedFileLink } from '../../domain/uploaded-file';
import type { AgentRepository } from '../../ports/agent-repository.port';
import type { Clock } from '../../ports/clock.port';
import type { EvaluationRepository } from '../../ports/evaluation-repository.port';
import type { InteractionRepository } from '../../ports/interaction-repository.port';
import type { MessageQueue } from '../../ports/sync-job-queue.port';

export interface StartEvaluationDependencies {
  readonly agents: Pick<AgentRepository, 'get'>;
  readonly interactions: Pick<InteractionRepository, 'list'>;
  readonly evaluations: EvaluationRepository;
  readonly evaluationQueue: MessageQueue<EvaluationRunMessage>;
  readonly clock: Clock;
}

export interface FromInteractions {
  readonly agent_id?: string | undefined;
  readonly feedback: FromInteractionsFeedback;
  /** Inclusive start (D3 timestamp or date). */
  readonly since?: Date | undefined;
  readonly limit: number;
}

/** `POST /api/v1/evals`: exactly one of `questions` and `from_interactions` (checked by the schema). */
export interface StartEvaluationInput {
  readonly agent_id: string;
  readonly name?: string | null | undefined;
  readonly questions?:
    | readonly {
        readonly question: string;
        readonly expected_answer?: string | null | undefined;
        readonly expected_sources?: readonly string[] | null | undefined;
      }[]
    | undefined;
  readonly from_interactions?: FromInteractions | undefined;
}

/** The run asks as whoever started it. */
function askerOf(principal: Principal): EvaluationAsker {
  if (principal.kind === 'api_key') return { kind: 'api_key', key_id: principal.keyId };
  return {
    kind: 'session',
    user_id: principal.userId,
    role: principal.role,
    agent_ids: principal.agents.kind === 'all' ? null : [...principal.agents.agentIds].sort(),
    group_ids: principal.groupIds,
  };
}

/**
 * A positively rated interaction becomes a question whose expected
 * sources are the documents its answer cited and whose expected answer is
 * that answer; a negatively rated one a question without expectations (its
 * answer was judged wrong, so neither it nor its sources say what is right).
 */
export function questionFromInteraction(interaction: Interaction): EvaluationQuestion {
  const positive = interaction.feedback === 'positive';
  // An uploaded file is expected by its title (its name first): its link carries the address
  // the service had when it answered, which a later run, or another deployment, may not share.
  const expected = distinctDocuments(interaction.sources)
    .map((source) =>
      isUploadedFileLink(source.document_url) ? source.document_title : documentKey(source),
    )
    .slice(0, EVALUATION_LIMITS.expectedSourcesMax)
    .filter((key) => key.length <= EVALUATION_LIMITS.expectedSourceMax);
  // Its [n] markers numbered that answer's sources: they mean nothing to another answer.
  const answer = stripCitations(interaction.response);
  return {
    question: interaction.query,
    expected_answer:
      positive && answer.length > 0 && answer.length <= EVALUATION_LIMITS.expectedAnswerMax
        ? answer
        : null,
    expected_sources: positive && expected.length > 0 ? expected : null,
    source_interaction_id: interaction.id,
  };
}

async function interactionsWithFeedback(
  deps: Pick<StartEvaluationDependencies, 'interactions'>,
  orgId: string,
  from: FromInteractions,
  agentId: string,
): Promise<Interaction[]> {
  const kinds = from.feedback === 'any' ? (['positive', 'negative'] as const) : [from.feedback];
  const found: Interaction[] = [];
  for (const feedback of kinds) {
    const page = await deps.interactions.list(
      orgId,
      { agentId, feedback, ...(from.since ? { from: from.since } : {}) },
      { limit: from.limit, offset: 0 },
    );
    found.push(...page.items);
  }
  // Newest first, as the interactions list; ids are ULIDs, so they sort by time.
  return found.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)).slice(0, from.limit);
}

/**
 * Starts an evaluation (issue 11 item 5): checks the agent as a query would
 * (an agent the caller may not use does not exist), builds the question
 * set (given, or from rated interactions), stores it and queues the
 * run. The run is removed again if its message cannot be sent, so a failed
 * start leaves nothing behind.
 */
export async function startEvaluation(
  deps: StartEvaluationDependencies,
  principal: Principal,
  input: StartEvaluationInput,
): Promise<Evaluation> {
  const orgId = principal.orgId;
  const access = agentAccessOf(principal);
  const agent = mayUseAgent(access, input.agent_id)
    ? await deps.agents.get(orgId, input.agent_id)
    : null;
  if (!agent) throw new NotFoundError(`No agent ${input.agent_id}`);

  let questions: EvaluationQuestion[];
  const from = input.from_interactions;
  let source: Evaluation['source'] = { type: 'questions' };
  if (from) {
    const sourceAgentId = from.agent_id ?? agent.id;
    if (!mayUseAgent(access, sourceAgentId) || !(await deps.agents.get(orgId, sourceAgentId))) {
      throw new NotFoundError(`No agent ${sourceAgentId}`);
    }
    const interactions = await interactionsWithFeedback(deps, orgId, from, sourceAgentId);
    if (interactions.length === 0) {
      throw new InvalidRequestError(
        `No interactions of agent ${sourceAgentId} have ${from.feedback === 'any' ? '' : `${from.feedback} `}feedback${from.since ? ` since ${from.since.toISOString()}` : ''}: the question set would be empty`,
        { field: 'from_interactions' },
      );
    }
    questions = interactions.map(questionFromInteraction);
    source = {
      type: 'interactions',
      agent_id: sourceAgentId,
      feedback: from.feedback,
      since: from.since?.toISOString() ?? null,
      limit: from.limit,
    };
  } else {
    questions = (input.questions ?? []).map((given) => ({
      question: given.question,
      expected_answer: given.expected_answer ?? null,
      expected_sources:
        given.expected_sources && given.expected_sources.length > 0
          ? [...new Set(given.expected_sources)]
          : null,
      source_interaction_id: null,
    }));
  }

  const now = deps.clock.now();
  const evaluation: Evaluation = {
    id: newId('evaluation', now.getTime()),
    name: input.name ?? null,
    agent_id: agent.id,
    status: 'queued',
    question_count: questions.length,
    completed_count: 0,
    source,
    totals: null,
    error: null,
    created_at: now.toISOString(),
    started_at: null,
    completed_at: null,
  };
  await deps.evaluations.create(orgId, evaluation, askerOf(principal), questions);
  try {
    await deps.evaluationQueue.send({ org_id: orgId, eval_id: evaluation.id });
  } catch (error) {
    await deps.evaluations.discard(orgId, evaluation.id);
    throw error;
  }
  return evaluation;
}
