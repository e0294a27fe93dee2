import { InvalidRequestError } from '../../layers/core/domain/errors';
import { agentAccessOf, type Principal } from '../../layers/core/domain/principal';
import { dayAfter } from '../../layers/core/http/date.schema';
import { httpFunction } from '../../layers/core/http/http-function';
import { operationsWith } from '../../layers/core/http/operation';
import { pageRequest } from '../../layers/core/http/pagination.schema';
import { jsonResponse } from '../../layers/core/http/responses';
import { INTERACTIONS_ROUTES } from '../../layers/core/http/routes/interactions';
import {
  type ConversationReader,
  getConversation,
  listConversations,
} from '../../layers/core/use-cases/interactions/conversations';
import {
  askersOf,
  mayReadEmails,
} from '../../layers/core/use-cases/interactions/interaction-askers';
import {
  giveFeedback,
  listInteractions,
} from '../../layers/core/use-cases/interactions/interaction-use-cases';
import {
  conversationList,
  conversationResource,
  listConversationsQuery,
} from './conversation.schema';
import {
  feedbackBody,
  interactionList,
  interactionResource,
  legacyFeedbackBody,
  listInteractionsQuery,
} from './interaction.schema';
import { dependencies, type InteractionsDependencies } from './wiring';

const operation = operationsWith<InteractionsDependencies>();

/** A caller reads the conversations they asked in: a user their own, an API key its own. */
function conversationReader(principal: Principal): ConversationReader {
  return {
    orgId: principal.orgId,
    askedBy:
      principal.kind === 'session'
        ? { kind: 'user', userId: principal.userId }
        : { kind: 'key', keyId: principal.keyId },
    access: agentAccessOf(principal),
  };
}

/** Interactions and feedback (spec; legacy D8: /api/interactions, /api/interactions/feedback). */
export const operations = {
  listInteractions: operation({
    summary:
      'List interactions, newest first, by agent, dates (inclusive), feedback, text and whether they were answered, each with who asked',
    query: listInteractionsQuery,
    responses: { 200: { description: 'A page of interactions', schema: interactionList } },
    async handle({ query, principal, deps }) {
      if (query.start_date && query.end_date && query.start_date > query.end_date) {
        throw new InvalidRequestError('start_date is after end_date', {
          fields: [{ path: 'start_date', message: 'must not be after end_date' }],
        });
      }
      const page = pageRequest(query);
      const access = agentAccessOf(principal);
      const result = await listInteractions(
        deps,
        principal.orgId,
        {
          ...(query.agent_id ? { agentId: query.agent_id } : {}),
          ...(query.start_date ? { from: query.start_date } : {}),
          ...(query.end_date ? { to: dayAfter(query.end_date) } : {}),
          ...(query.feedback
            ? { feedback: query.feedback === 'null' ? ('none' as const) : query.feedback }
            : {}),
        },
        page,
        access,
        {
          ...(query.q ? { text: query.q } : {}),
          ...(query.answered ? { answered: query.answered === 'true' } : {}),
        },
      );
      const askers = await askersOf(deps, principal.orgId, result.items, {
        withEmails: mayReadEmails(principal),
      });
      return jsonResponse(200, {
        interactions: result.items.map((interaction) => ({
          ...interaction,
          asked_by: askers.get(interaction.id) ?? null,
        })),
        total: result.total,
        ...page,
      });
    },
  }),
  giveFeedback: operation({
    summary: 'Give feedback on an interaction (the latest feedback wins)',
    pathIds: { id: 'interaction' },
    body: feedbackBody,
    responses: {
      200: { description: 'The interaction with its feedback', schema: interactionResource },
    },
    async handle({ params, body, principal, deps }) {
      return jsonResponse(
        200,
        await giveFeedback(deps, principal.orgId, params.id ?? '', body, agentAccessOf(principal)),
      );
    },
  }),
  giveFeedbackLegacy: operation({
    summary: 'Give feedback (legacy: the interaction id in the body)',
    body: legacyFeedbackBody,
    responses: {
      200: { description: 'The interaction with its feedback', schema: interactionResource },
    },
    async handle({ body, params, principal, deps }) {
      const { interaction_id, ...feedback } = body;
      // The successor link names this interaction's v1 path (/api/v1/interactions/{id}/feedback).
      params.id = interaction_id;
      return jsonResponse(
        200,
        await giveFeedback(
          deps,
          principal.orgId,
          interaction_id,
          feedback,
          agentAccessOf(principal),
        ),
      );
    },
  }),
  listConversations: operation({
    summary:
      "List the caller's own conversations, most recently continued first, each with its first question",
    query: listConversationsQuery,
    responses: {
      200: { description: "A page of the caller's conversations", schema: conversationList },
    },
    async handle({ query, principal, deps }) {
      const page = pageRequest(query);
      const result = await listConversations(
        deps,
        conversationReader(principal),
        query.agent_id ? { agentId: query.agent_id } : {},
        page,
      );
      return jsonResponse(200, { conversations: result.items, total: result.total, ...page });
    },
  }),
  getConversation: operation({
    summary: "Read one of the caller's own conversations: its questions and answers, oldest first",
    pathIds: { id: 'session' },
    responses: {
      200: {
        description: 'The conversation with its answers and sources',
        schema: conversationResource,
      },
    },
    async handle({ params, principal, deps }) {
      return jsonResponse(
        200,
        await getConversation(deps, conversationReader(principal), params.id ?? ''),
      );
    },
  }),
};

export const handler = httpFunction({
  family: 'interactions',
  routes: INTERACTIONS_ROUTES,
  operations,
  dependencies,
});
