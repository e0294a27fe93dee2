import { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyResult } from 'aws-lambda';
import {
  ConnectionCallbackError,
  ProviderUnavailableError,
} from '../../layers/core/domain/connector';
import { principalId } from '../../layers/core/domain/principal';
import { httpFunction } from '../../layers/core/http/http-function';
import type { RequestClient } from '../../layers/core/http/operation';
import { operationsWith, publicOperationsWith } from '../../layers/core/http/operation';
import { jsonResponse } from '../../layers/core/http/responses';
import {
  completeConnection,
  disconnect,
  startConnection,
} from '../../layers/core/use-cases/connectors/connections';
import { CONNECTIONS_ROUTES } from '../../lib/routes/connections';
import { errorPage } from '../sso/pages';
import { callbackQuery, disconnection, startedConnection } from './connections.schema';
import { type ConnectionsDependencies, dependencies } from './wiring';

const operation = operationsWith<ConnectionsDependencies>();
const publicOperation = publicOperationsWith<ConnectionsDependencies>();
const logger = new Logger({ serviceName: 'svc-connections' });

/** The API's own address: configured (the local runtime, a custom domain), else as API Gateway was reached. */
function baseUrl(deps: ConnectionsDependencies, client: RequestClient): string {
  const url = deps.publicBaseUrl() ?? client.apiBaseUrl;
  if (!url) throw new Error('The API address is unknown: set SVC_PUBLIC_URL');
  return url.replace(/\/$/, '');
}

const dataSourcePath = { id: 'dataSource' } as const;

/** D26, issue 12: start a provider sign-in, come back from it, remove the connection. */
export const operations = {
  startConnection: operation({
    summary:
      "Connect a connector data source: redirects (302) to the provider's sign-in; the body names the same URL",
    pathIds: dataSourcePath,
    responses: {
      302: {
        description: "To the provider's authorization URL (also in the body, for API clients)",
        schema: startedConnection,
      },
      409: {
        description: "The provider's app is not configured, or the connector is not built yet",
      },
    },
    async handle({ params, principal, deps, client }) {
      const started = await startConnection(deps, {
        orgId: principal.orgId,
        dataSourceId: params.id ?? '',
        principalId: principalId(principal),
        baseUrl: baseUrl(deps, client),
      });
      const response = jsonResponse(302, started);
      return {
        ...response,
        headers: {
          ...response.headers,
          Location: started.authorization_url,
          'Cache-Control': 'no-store',
        },
      };
    },
  }),
  disconnect: operation({
    summary: 'Disconnect: deletes the tokens and revokes them at the provider',
    pathIds: dataSourcePath,
    responses: { 200: { description: 'Disconnected', schema: disconnection } },
    async handle({ params, principal, deps }) {
      const result = await disconnect(deps, principal.orgId, params.id ?? '');
      if (!result.revoked_at_provider && result.revocation_error) {
        logger.warn('Revocation at the provider failed', {
          data_source_id: params.id,
          reason: result.revocation_error,
        });
      }
      return jsonResponse(200, result);
    },
  }),
  completeConnection: publicOperation({
    summary: "The provider's redirect back: exchanges the code and makes the source Connected",
    query: callbackQuery,
    responses: {
      200: { description: "The 'Connected' page" },
      400: { description: "The 'Connection failed' page, with the reason" },
      502: { description: 'The provider could not be reached' },
    },
    async handle({ query, deps, client }) {
      try {
        const source = await completeConnection(deps, {
          state: query.state,
          code: query.code,
          error: query.error,
          baseUrl: baseUrl(deps, client),
        });
        return page(
          200,
          'Connected',
          `${source.name} is connected. Its next sync reads it; you can close this window.`,
        );
      } catch (error) {
        if (error instanceof ConnectionCallbackError) {
          logger.warn('Connector sign-in failed', { reason: error.message });
          return page(400, 'Connection failed', `${error.message}. Start connecting again.`);
        }
        if (error instanceof ProviderUnavailableError) {
          logger.warn('Connector sign-in failed: provider unavailable', { reason: error.message });
          return page(
            502,
            'Connection failed',
            'The provider could not be reached. Start connecting again.',
          );
        }
        throw error;
      }
    },
  }),
};

/** A small HTML page for the browser (P157): the reasons are our own words, never the provider's text. */
function page(statusCode: number, title: string, text: string): APIGatewayProxyResult {
  const result = errorPage(statusCode, title, text);
  return { ...result, headers: { ...result.headers, 'Cache-Control': 'no-store' } };
}

export const handler = httpFunction({
  family: 'connections',
  routes: CONNECTIONS_ROUTES,
  operations,
  dependencies,
});
