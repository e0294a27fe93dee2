import type { ApiKeyRecord } from '../../layers/core/domain/api-key-record';
import { type Organization, settingsOf } from '../../layers/core/domain/organization';
import { httpFunction } from '../../layers/core/http/http-function';
import { operationsWith } from '../../layers/core/http/operation';
import { pageRequest } from '../../layers/core/http/pagination.schema';
import { emptyResponse, jsonResponse } from '../../layers/core/http/responses';
import { ORGANIZATIONS_ROUTES } from '../../layers/core/http/routes/organizations';
import {
  createApiKeyForDeployment,
  listApiKeys,
  revokeApiKey,
} from '../../layers/core/use-cases/api-keys/api-key-use-cases';
import {
  getOwnOrganization,
  updateOwnOrganization,
} from '../../layers/core/use-cases/organizations/organization-settings';
import {
  apiKeyList,
  createApiKeyBody,
  createdApiKeyResource,
  listApiKeysQuery,
} from './api-key.schema';
import { organizationResource, updateOrganizationBody } from './organization.schema';
import { dependencies, type OrganizationsDependencies } from './wiring';

const operation = operationsWith<OrganizationsDependencies>();

function organizationView(organization: Organization) {
  return {
    id: organization.id,
    name: organization.name,
    plan: organization.plan,
    settings: { ip_allowlist: [...settingsOf(organization).ip_allowlist] },
    created_at: organization.created_at,
    updated_at: organization.updated_at ?? null,
  };
}

/** A key as listed: what D10 keeps of it, never the value or its hash. */
function apiKeyView(record: ApiKeyRecord) {
  return {
    id: record.id,
    name: record.name,
    scopes: [...record.scopes],
    environment: record.environment,
    last4: record.last4,
    created_at: record.created_at,
    last_used_at: record.last_used_at,
  };
}

/**
 * The organization (`/api/v1/organizations/:id`, legacy `/api/organizations/:id`)
 * and its API keys (`/api/v1/keys`, legacy `/api/keys`).
 */
export const operations = {
  getOrganization: operation({
    summary: 'Get your organization: name, plan and settings',
    pathIds: { id: 'organization' },
    responses: { 200: { description: 'The organization', schema: organizationResource } },
    async handle({ params, principal, deps }) {
      const organization = await getOwnOrganization(deps, principal.orgId, params.id ?? '');
      return jsonResponse(200, organizationView(organization));
    },
  }),
  updateOrganization: operation({
    summary: "Change your organization's name or settings (IP allowlist)",
    pathIds: { id: 'organization' },
    body: updateOrganizationBody,
    responses: { 200: { description: 'The updated organization', schema: organizationResource } },
    async handle({ params, body, principal, client, deps }) {
      const organization = await updateOwnOrganization(
        deps,
        principal.orgId,
        params.id ?? '',
        body,
        { sourceIp: client.sourceIp },
      );
      return jsonResponse(200, organizationView(organization));
    },
  }),
  listApiKeys: operation({
    summary:
      "List the organization's API keys (never their values) and the environment new keys get",
    query: listApiKeysQuery,
    responses: { 200: { description: 'A page of keys, newest first', schema: apiKeyList } },
    async handle({ query, principal, deps }) {
      const page = pageRequest(query);
      const keys = await listApiKeys(deps, principal.orgId);
      return jsonResponse(200, {
        keys: keys.slice(page.offset, page.offset + page.limit).map(apiKeyView),
        environment: deps.environment,
        total: keys.length,
        ...page,
      });
    },
  }),
  createApiKey: operation({
    summary: 'Create an API key (its value is shown in this answer only)',
    body: createApiKeyBody,
    responses: {
      201: {
        description: 'The new key, with its value: shown once, never again',
        schema: createdApiKeyResource,
      },
    },
    async handle({ body, principal, deps }) {
      const created = await createApiKeyForDeployment(deps, deps.environment, {
        orgId: principal.orgId,
        name: body.name,
        scopes: body.scopes,
        environment: body.environment,
      });
      return jsonResponse(201, { ...apiKeyView(created.record), key: created.key });
    },
  }),
  deleteApiKey: operation({
    summary: 'Delete an API key (it stops working at once)',
    pathIds: { id: 'apiKey' },
    responses: { 204: { description: 'Deleted' } },
    async handle({ params, principal, deps }) {
      await revokeApiKey(deps, principal.orgId, params.id ?? '');
      return emptyResponse(204);
    },
  }),
};

export const handler = httpFunction({
  family: 'organizations',
  routes: ORGANIZATIONS_ROUTES,
  operations,
  dependencies,
});
