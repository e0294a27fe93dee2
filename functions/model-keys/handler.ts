import { httpFunction } from '../../layers/core/http/http-function';
import { operationsWith } from '../../layers/core/http/operation';
import { pageRequest } from '../../layers/core/http/pagination.schema';
import { emptyResponse, jsonResponse } from '../../layers/core/http/responses';
import { MODEL_KEYS_ROUTES } from '../../layers/core/http/routes/model-keys';
import {
  createModelKey,
  deleteModelKey,
  getModelKey,
  listModelKeys,
} from '../../layers/core/use-cases/model-keys/model-key-management';
import {
  createModelKeyBody,
  listModelKeysQuery,
  modelKeyList,
  modelKeyResource,
} from './model-key.schema';
import { dependencies, type ModelKeysDependencies } from './wiring';

const operation = operationsWith<ModelKeysDependencies>();

/** Model keys: `/api/v1/model-keys`, Admin scope, admin role. */
export const operations = {
  listModelKeys: operation({
    summary:
      "List the organization's model keys (never the keys: last4 only), each with the agents that use it",
    query: listModelKeysQuery,
    responses: { 200: { description: 'A page of model keys', schema: modelKeyList } },
    async handle({ query, principal, deps }) {
      const page = pageRequest(query);
      const result = await listModelKeys(deps, principal.orgId, page);
      return jsonResponse(200, { model_keys: result.items, total: result.total, ...page });
    },
  }),
  createModelKey: operation({
    summary:
      "Register a model key: checked with one call to the provider (400 with the provider's reason when refused), stored sealed",
    body: createModelKeyBody,
    responses: {
      201: {
        description: 'The model key (last4 only; the key is never returned)',
        schema: modelKeyResource,
      },
    },
    async handle({ body, principal, deps }) {
      return jsonResponse(201, await createModelKey(deps, principal.orgId, body));
    },
  }),
  getModelKey: operation({
    summary: 'Get a model key (last4 only) and the agents that use it',
    pathIds: { id: 'modelKey' },
    responses: { 200: { description: 'The model key', schema: modelKeyResource } },
    async handle({ params, principal, deps }) {
      return jsonResponse(200, await getModelKey(deps, principal.orgId, params.id ?? ''));
    },
  }),
  deleteModelKey: operation({
    summary: 'Delete a model key (409 naming the agents that still use it, by id and name)',
    pathIds: { id: 'modelKey' },
    responses: { 204: { description: 'Deleted' } },
    async handle({ params, principal, deps }) {
      await deleteModelKey(deps, principal.orgId, params.id ?? '');
      return emptyResponse(204);
    },
  }),
};

export const handler = httpFunction({
  family: 'model-keys',
  routes: MODEL_KEYS_ROUTES,
  operations,
  dependencies,
});
