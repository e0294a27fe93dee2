import type { Agent } from '../../domain/agent';
import { mayUseAgent } from '../../domain/agent-access';
import { renumberCitations } from '../../domain/citations';
import { ConflictError, NotFoundError } from '../../domain/errors';
import type { DomainEvent } from '../../domain/events';
import { newId } from '../../domain/ids';
import type { CitedSource, Interaction, InteractionChannel } from '../../domain/interaction';
import type { BilledTo } from '../../domain/model-key';
import { costUsd } from '../../domain/model-pricing';
import { NO_SOURCES_ANSWER } from '../../domain/no-answer';
import { agentAccessOf, type Principal } from '../../domain/principal';
import { groundAnswer, NO_CLAIMS } from '../../domain/retrieval/grounding';
import { words } from '../../domain/retrieval/text-analysis';
import { estimateTokens, firstEstimatedTokens } from '../../domain/retrieval/token-estimate';
import { absoluteDocumentUrl } from '../../domain/uploaded-file';
import type { AgentRepository } from '../../ports/agent-repository.port';
import type {
  Answerer,
  AnswerResult,
  AnswerSource,
  ConversationTurn,
} from '../../ports/answerer.port';
import type { Clock } from '../../ports/clock.port';
import type { Embedder } from '../../ports/embedder.port';
import type {
  AnalyticsRollups,
  InteractionRepository,
  SessionHistory,
} from '../../ports/interaction-repository.port';
import type { DailyUsage } from '../../ports/rate-limiter.port';
import type { RetrievalIndex } from '../../ports/retrieval-index.port';
import { domainEvent } from '../events/domain-events';
import { retrieve } from '../retrieval/retrieve';
import { answererForAgent, type ModelKeyAnsweringDependencies } from './model-key-answerer';

/** How many retrieved chunks an answer is composed from. */
export const ANSWER_SOURCES = 5;

/** What an agent says when its data sources have nothing indexed (its text lives in domain/no-answer.ts). */
export { NO_SOURCES_ANSWER };

export interface QueryDependencies extends ModelKeyAnsweringDependencies {
  readonly agents: Pick<AgentRepository, 'get'>;
  readonly retrieval: RetrievalIndex;
  readonly embedder: Embedder;
  /** The answerer for an agent's model (`offline-extractive` unless a provider is configured). */
  readonly answererFor: (model: string) => Answerer;
  readonly interactions: Pick<InteractionRepository, 'create'>;
  readonly sessions: SessionHistory;
  readonly rollups: Pick<AnalyticsRollups, 'recordInteraction'>;
  /** tokens/day: where an answer's tokens are settled. */
  readonly dailyUsage: Pick<DailyUsage, 'addTokens'>;
  readonly clock: Clock;
}

export interface QueryInput {
  readonly agent_id: string;
  readonly query: string;
  readonly session_id?: string | undefined;
  /**
   * Earlier turns the caller keeps itself (an OpenAI-style client sends the
   * whole conversation each time): used instead of the session's, which a
   * new session then starts from.
   */
  readonly history?: readonly ConversationTurn[] | undefined;
  readonly temperature?: number | undefined;
  readonly max_tokens?: number | undefined;
  /** The caller streams the answer (the answerer may pick its provider's streaming call). */
  readonly stream?: boolean | undefined;
}

/** How a request reached the service: what an uploaded file's `document_url` is made absolute with. */
export interface QueryContext {
  /** The service's public origin (`https://host[/stage]`); empty leaves file links relative to the API. */
  readonly linkOrigin: string;
  /** Aborted when nobody waits for the answer any more (a streamed answer's client left): the model call stops. */
  readonly signal?: AbortSignal;
  /** How the question reached the service, recorded with the interaction; `api` unless said. */
  readonly channel?: InteractionChannel;
}

/** The spec's Query result. */
export interface QueryResult {
  readonly response: string;
  readonly sources: readonly CitedSource[];
  readonly metadata: {
    readonly interaction_id: string;
    readonly session_id: string;
    readonly latency_ms: number;
    readonly tokens_input: number;
    readonly tokens_output: number;
    readonly cost_usd: number;
    readonly rag_strategy: string;
    readonly model: string;
    /** Who pays for the model call: `service`, or `model_key` (the organization's own). */
    readonly billed_to: BilledTo;
    readonly model_key_id: string | null;
    /** The share of the answer's claims a cited passage supports (grounding.ts), 0–1. */
    readonly groundedness: number;
  };
}

/** D19's stream, in order: the sources, the answer in pieces, then the result. */
export type QueryEvent =
  | { readonly type: 'sources'; readonly sources: readonly CitedSource[] }
  | { readonly type: 'delta'; readonly text: string }
  | { readonly type: 'done'; readonly result: QueryResult };

/** A follow-up this short ("Tell me more.", "And gift cards?") says too little to search by. */
const FOLLOW_UP_MAX_WORDS = 4;

/**
 * What to search for: the question, or, for a short follow-up in a session,
 * the previous question with it. Since answers cite only what
 * supports them (P175), a follow-up must retrieve what the conversation is
 * about, not chunks that merely share "more" with it.
 */
function retrievalQuery(question: string, history: readonly { question: string }[]): string {
  const previous = history.at(-1)?.question;
  if (previous === undefined || words(question).length > FOLLOW_UP_MAX_WORDS) return question;
  return `${previous}\n${question}`;
}

async function activeAgent(
  deps: QueryDependencies,
  principal: Principal,
  agentId: string,
): Promise<Agent> {
  // An agent the user's groups do not allow is answered as one that does not exist.
  const agent = mayUseAgent(agentAccessOf(principal), agentId)
    ? await deps.agents.get(principal.orgId, agentId)
    : null;
  if (!agent) throw new NotFoundError(`No agent ${agentId}`);
  // A disabled agent refuses queries with 409.
  if (agent.status === 'disabled') throw new ConflictError(`Agent ${agentId} is disabled`);
  return agent;
}

/**
 * Answers a question with an agent (spec: POST /api/v1/query): retrieves with
 * the agent's strategy from its data sources, composes the answer with its
 * model (session history included), then records the interaction — with
 * its `interaction.created` and `interaction.completed` events in the same
 * write — the session's turn, the analytics rollup and the tokens the answer
 * spent (tokens/day). Yields D19's events;
 * a non-streaming caller just keeps the `done` result.
 */
export async function* answerQuery(
  deps: QueryDependencies,
  principal: Principal,
  input: QueryInput,
  context: QueryContext = { linkOrigin: '' },
): AsyncGenerator<QueryEvent> {
  const started = deps.clock.now();
  const orgId = principal.orgId;
  const agent = await activeAgent(deps, principal, input.agent_id);
  // Chosen before anything is streamed, so an agent whose model has no provider, or whose
  // model key is gone or unreadable, is a plain 4xx either way.
  const { answerer, billedTo, modelKeyId } = await answererForAgent(deps, orgId, agent);
  const sessionId = input.session_id ?? newId('session', started.getTime());
  const history = input.history ?? (await sessionTurns(deps, principal, input.session_id));

  const retrieved =
    agent.data_source_ids.length === 0
      ? { chunks: [] }
      : await retrieve(deps, {
          orgId,
          dataSourceIds: agent.data_source_ids,
          query: retrievalQuery(input.query, history),
          strategy: agent.rag_strategy,
          topK: ANSWER_SOURCES,
        });
  const sources: CitedSource[] = retrieved.chunks.map(({ chunk, score, similarity }, index) => ({
    chunk_id: chunk.chunk_id,
    document_id: chunk.document_id,
    data_source_id: chunk.data_source_id,
    document_title: chunk.document_title,
    document_url: absoluteDocumentUrl(chunk.document_url, context.linkOrigin),
    rank: index + 1,
    score,
    similarity_score: similarity,
    chunk_text: chunk.text,
    // Known once the answer is: the `done` result carries them.
    quoted_ranges: [],
  }));
  const offered: AnswerSource[] = retrieved.chunks.map(({ chunk, similarity }, index) => ({
    number: index + 1,
    chunk_id: chunk.chunk_id,
    document_id: chunk.document_id,
    document_title: chunk.document_title,
    document_url: sources[index]?.document_url ?? null,
    heading_path: chunk.heading_path,
    text: chunk.text,
    score: similarity,
  }));
  yield { type: 'sources', sources };

  let answer: AnswerResult;
  if (offered.length === 0) {
    // Nothing indexed (or nothing retrievable): say so, without calling a model that might invent.
    // max_tokens bounds this answer too.
    const maxTokens = input.max_tokens ?? agent.max_tokens;
    const text =
      estimateTokens(NO_SOURCES_ANSWER) <= maxTokens
        ? NO_SOURCES_ANSWER
        : firstEstimatedTokens(NO_SOURCES_ANSWER, maxTokens);
    answer = {
      text,
      cited: [],
      tokensInput: 0,
      tokensOutput: estimateTokens(text),
      model: agent.model,
    };
    yield { type: 'delta', text };
  } else {
    let result: AnswerResult | undefined;
    for await (const event of answerer.answer({
      model: agent.model,
      systemPrompt: agent.system_prompt,
      question: input.query,
      history,
      sources: offered,
      temperature: input.temperature ?? agent.temperature,
      maxTokens: input.max_tokens ?? agent.max_tokens,
      stream: input.stream === true,
      ...(context.signal ? { signal: context.signal } : {}),
    })) {
      if (event.type === 'delta') yield event;
      else result = event.result;
    }
    if (!result) throw new Error('The answerer ended without a result');
    answer = result;
  }

  // Issue 10: the result lists only the sources the answer cites, renumbered so
  // `[n]` is `sources[n - 1]`; none when nothing supports an answer. A stream's `sources`
  // event came first, numbered as its deltas cite; `done` carries this final form.
  const listed = answer.cited
    .map((number) => sources[number - 1])
    .filter((source): source is CitedSource => source !== undefined);
  const response = renumberCitations(answer.text, answer.cited);
  // Judged on the answer as its reader gets it, the same way whichever answerer wrote it.
  // The "no indexed sources" answer claims nothing, like the honest non-answer.
  const grounding = offered.length === 0 ? NO_CLAIMS : groundAnswer(response, listed);
  const citedSources = listed.map((source, index) => ({
    ...source,
    quoted_ranges: grounding.quotedRanges.get(index + 1) ?? [],
  }));

  const finished = deps.clock.now();
  const interaction: Interaction = {
    id: newId('interaction', started.getTime()),
    agent_id: agent.id,
    session_id: sessionId,
    query: input.query,
    response,
    sources: citedSources,
    cited_sources: citedSources.length,
    groundedness: grounding.groundedness,
    feedback: null,
    feedback_comment: null,
    latency_ms: Math.max(0, finished.getTime() - started.getTime()),
    tokens_input: answer.tokensInput,
    tokens_output: answer.tokensOutput,
    cost_usd: costUsd(answer.model, answer.tokensInput, answer.tokensOutput).usd,
    rag_strategy: agent.rag_strategy,
    model: answer.model,
    billed_to: billedTo,
    model_key_id: modelKeyId,
    key_id: principal.kind === 'api_key' ? principal.keyId : null,
    user_id: principal.kind === 'session' ? principal.userId : null,
    channel: context.channel ?? 'api',
    created_at: started.toISOString(),
  };
  await deps.interactions.create(
    orgId,
    interaction,
    interactionEvents(orgId, interaction, started, finished),
  );
  await deps.sessions.append(
    orgId,
    sessionId,
    { question: input.query, answer: answer.text },
    finished.toISOString(),
    sessionStarter(principal),
  );
  await deps.rollups.recordInteraction(orgId, interaction);
  // Settled once the answer is complete, on the day it was asked (the day whose tokens
  // admitted it, and the interaction's created_at); an answer started under the cap finishes.
  await deps.dailyUsage.addTokens(
    orgId,
    interaction.tokens_input + interaction.tokens_output,
    started.getTime(),
  );

  yield {
    type: 'done',
    result: {
      response: interaction.response,
      sources: citedSources,
      metadata: {
        interaction_id: interaction.id,
        session_id: sessionId,
        latency_ms: interaction.latency_ms,
        tokens_input: interaction.tokens_input,
        tokens_output: interaction.tokens_output,
        cost_usd: interaction.cost_usd,
        rag_strategy: interaction.rag_strategy,
        model: interaction.model,
        billed_to: billedTo,
        model_key_id: modelKeyId,
        groundedness: grounding.groundedness,
      },
    },
  };
}

/** Spec, Events: interaction.created (question asked) and interaction.completed (response generated, with id, prompt, response, agentId, userId, sources). */
function interactionEvents(
  orgId: string,
  interaction: Interaction,
  asked: Date,
  answered: Date,
): DomainEvent[] {
  const summary = {
    id: interaction.id,
    agentId: interaction.agent_id,
    sessionId: interaction.session_id,
    userId: interaction.user_id ?? interaction.session_id,
    prompt: interaction.query,
  };
  return [
    domainEvent('interaction.created', orgId, { interaction: summary }, asked),
    domainEvent(
      'interaction.completed',
      orgId,
      {
        interaction: {
          ...summary,
          response: interaction.response,
          // Without their text, so without the ranges of it the answer quoted either.
          sources: interaction.sources.map(
            ({ chunk_text: _, quoted_ranges: __, ...source }) => source,
          ),
          latencyMs: interaction.latency_ms,
          groundedness: interaction.groundedness,
        },
      },
      answered,
    ),
  ];
}

/**
 * Who a session belongs to: the signed-in person who started it, or the
 * organization's programs (any of its API keys, so a rotated key continues
 * the conversations of the one it replaces).
 */
function sessionStarter(principal: Principal): string {
  return principal.kind === 'session' ? `user:${principal.userId}` : 'api_key';
}

/**
 * The earlier turns of the session the caller continues: none for a new
 * one. A session someone else started is answered as unknown, so one
 * person's conversation never becomes another's context, nor its existence
 * a hint. Sessions kept before their starter was recorded stay open to all.
 */
async function sessionTurns(
  deps: Pick<QueryDependencies, 'sessions'>,
  principal: Principal,
  sessionId: string | undefined,
): Promise<ConversationTurn[]> {
  if (sessionId === undefined) return [];
  const { turns, startedBy } = await deps.sessions.turns(principal.orgId, sessionId);
  if (startedBy !== null && startedBy !== sessionStarter(principal)) {
    throw new NotFoundError(`No conversation ${sessionId}`);
  }
  return turns;
}
