import { agentAccessOf } from '../../layers/core/domain/principal';
import { httpFunction } from '../../layers/core/http/http-function';
import { operationsWith } from '../../layers/core/http/operation';
import { pageRequest } from '../../layers/core/http/pagination.schema';
import { emptyResponse, jsonResponse } from '../../layers/core/http/responses';
import { AGENTS_ROUTES } from '../../layers/core/http/routes/agents';
import {
  createAgent,
  deleteAgent,
  getAgent,
  listAgents,
  updateAgent,
} from '../../layers/core/use-cases/agents/agent-use-cases';
import { availableModels } from '../../layers/core/use-cases/agents/available-models';
import {
  agentList,
  agentResource,
  createAgentBody,
  listAgentsQuery,
  modelChoiceList,
  updateAgentBody,
} from './agent.schema';
import { type AgentsDependencies, dependencies } from './wiring';

const operation = operationsWith<AgentsDependencies>();

/** Agents: `/api/v1/agents` and the legacy `/api/ai-agent-managers`; a user sees only the agents their groups allow. */
export const operations = {
  listAgents: operation({
    summary: 'List agents',
    query: listAgentsQuery,
    responses: {
      200: {
        description: 'A page of agents, newest first; with `q`, those whose name contains it',
        schema: agentList,
      },
    },
    async handle({ query, principal, deps }) {
      const page = pageRequest(query);
      const result = await listAgents(
        deps,
        principal.orgId,
        page,
        agentAccessOf(principal),
        query.q === undefined ? {} : { nameContains: query.q },
      );
      return jsonResponse(200, { agents: result.items, total: result.total, ...page });
    },
  }),
  createAgent: operation({
    summary: 'Create an agent',
    body: createAgentBody,
    responses: { 201: { description: 'The new agent', schema: agentResource } },
    async handle({ body, principal, deps }) {
      return jsonResponse(
        201,
        await createAgent(deps, principal.orgId, body, agentAccessOf(principal)),
      );
    },
  }),
  getAgent: operation({
    summary: 'Get an agent',
    pathIds: { id: 'agent' },
    responses: { 200: { description: 'The agent', schema: agentResource } },
    async handle({ params, principal, deps }) {
      return jsonResponse(
        200,
        await getAgent(deps, principal.orgId, params.id ?? '', agentAccessOf(principal)),
      );
    },
  }),
  updateAgent: operation({
    summary: 'Update an agent',
    pathIds: { id: 'agent' },
    body: updateAgentBody,
    responses: { 200: { description: 'The updated agent', schema: agentResource } },
    async handle({ params, body, principal, deps }) {
      return jsonResponse(
        200,
        await updateAgent(deps, principal.orgId, params.id ?? '', body, agentAccessOf(principal)),
      );
    },
  }),
  listModelChoices: operation({
    summary: 'List the models agents can answer with',
    responses: {
      200: {
        description:
          "Where an agent of this organization can get answers: first the service's own provider (the offline model always, and the provider's models), then each of the organization's model keys with its provider's models. Saving an agent with a model none of these can serve is refused with 400 on `model`.",
        schema: modelChoiceList,
      },
    },
    async handle({ principal, deps }) {
      return jsonResponse(200, { choices: await availableModels(deps, principal.orgId) });
    },
  }),
  deleteAgent: operation({
    summary: 'Delete an agent',
    pathIds: { id: 'agent' },
    responses: { 204: { description: 'Deleted' } },
    async handle({ params, principal, deps }) {
      await deleteAgent(deps, principal.orgId, params.id ?? '', agentAccessOf(principal));
      return emptyResponse(204);
    },
  }),
};

export const handler = httpFunction({
  family: 'agents',
  routes: AGENTS_ROUTES,
  operations,
  dependencies,
});
