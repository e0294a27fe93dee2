import { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyResult } from 'aws-lambda';
import {
  CONNECTOR_LIMITS,
  ConnectionCallbackError,
  ProviderUnavailableError,
} from '../../layers/core/domain/connector';
import { principalId } from '../../layers/core/domain/principal';
import { consoleOrigin } from '../../layers/core/http/console-url';
import { httpFunction } from '../../layers/core/http/http-function';
import type { RequestClient } from '../../layers/core/http/operation';
import { operationsWith, publicOperationsWith } from '../../layers/core/http/operation';
import { jsonResponse } from '../../layers/core/http/responses';
import { CONNECTIONS_ROUTES } from '../../layers/core/http/routes/connections';
import { sessionCookie } from '../../layers/core/http/session-cookie';
import {
  completeConnection,
  disconnect,
  startConnection,
} from '../../layers/core/use-cases/connectors/connections';
import { errorPage, type PageLink } from '../sso/pages';
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

/**
 * The cookie binding a connector sign-in to the browser that started
 * it, sent back only to the callback. `SameSite=Lax`: the provider returns
 * the browser by a top-level GET, which carries it.
 */
const FLOW_COOKIE = 'svc_oauth_flow';
const flowCookie = (value: string, maxAge: number) =>
  `${FLOW_COOKIE}=${value}; Max-Age=${maxAge}; Path=/api/oauth; HttpOnly; Secure; SameSite=Lax`;

/** A client that asks for JSON (the web application's fetch, which cannot read a redirect) gets 200. */
function wantsJson(accept: string | undefined): boolean {
  return /\bapplication\/json\b/i.test(accept ?? '') && !/\btext\/html\b/i.test(accept ?? '');
}

/** D26, issue 12: start a provider sign-in, come back from it, remove the connection. */
export const operations = {
  startConnection: operation({
    summary:
      "Connect a connector data source: a signed-in user's browser, with X-CSRF-Token; sets the svc_oauth_flow cookie the callback needs and redirects (302) to the provider's sign-in, or answers 200 with the same URL to `Accept: application/json`",
    pathIds: dataSourcePath,
    responses: {
      200: {
        description:
          "With `Accept: application/json`: the provider's authorization URL, for the web application to navigate to",
        schema: startedConnection,
      },
      302: {
        description: "To the provider's authorization URL (also in the body)",
        schema: startedConnection,
      },
      409: {
        description: "The provider's app is not configured, or the connector is not built yet",
      },
    },
    async handle({ params, principal, session, deps, client }) {
      const started = await startConnection(deps, {
        orgId: principal.orgId,
        dataSourceId: params.id ?? '',
        principalId: principalId(principal),
        baseUrl: baseUrl(deps, client),
      });
      const json = wantsJson(client.header('accept'));
      const response = jsonResponse(json ? 200 : 302, started.connection);
      // An operation that sets a cookie sets the continued session's too.
      const cookies = [flowCookie(started.browserSecret, CONNECTOR_LIMITS.flowSeconds)];
      if (session)
        cookies.push(sessionCookie(session.token, session.claims.exp, session.claims.iat));
      return {
        ...response,
        headers: {
          ...response.headers,
          ...(json ? {} : { Location: started.connection.authorization_url }),
          'Cache-Control': 'no-store',
        },
        multiValueHeaders: { 'Set-Cookie': cookies },
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
    summary:
      "The provider's redirect back, in the browser that started the sign-in (its svc_oauth_flow cookie): exchanges the code and makes the source Connected; clears the cookie",
    query: callbackQuery,
    responses: {
      200: { description: "The 'Connected' page", contentType: 'text/html' },
      400: {
        description:
          "The 'Connection failed' page, with the reason; a browser without the sign-in's flow cookie gets the same page as a state that does not verify",
        contentType: 'text/html',
      },
      502: { description: 'The provider could not be reached', contentType: 'text/html' },
    },
    async handle({ query, deps, client }) {
      // The callback is on the console's origin: its pages lead back there.
      const consoleAt = consoleOrigin({
        publicBaseUrl: deps.consoleOrigin ?? deps.publicBaseUrl(),
        apiBaseUrl: client.apiBaseUrl,
      });
      const dataSources: PageLink = {
        href: `${consoleAt}/data-sources`,
        text: 'Back to data sources',
      };
      try {
        const source = await completeConnection(deps, {
          state: query.state,
          code: query.code,
          error: query.error,
          browserSecret: client.cookie(FLOW_COOKIE),
          baseUrl: baseUrl(deps, client),
        });
        // Back to the source in the console, which says it is connected.
        return page(200, 'Connected', `${source.name} is connected. Its next sync reads it.`, {
          href: `${consoleAt}/data-sources/${encodeURIComponent(source.id)}?connected=1`,
          text: `Back to ${source.name}`,
          goNow: true,
        });
      } catch (error) {
        if (error instanceof ConnectionCallbackError) {
          logger.warn('Connector sign-in failed', {
            reason: error.message,
            ...(error.details.reason ? { detail: error.details.reason } : {}),
          });
          return page(
            400,
            'Connection failed',
            `${error.message}. Start connecting again.`,
            dataSources,
          );
        }
        if (error instanceof ProviderUnavailableError) {
          logger.warn('Connector sign-in failed: provider unavailable', { reason: error.message });
          return page(
            502,
            'Connection failed',
            'The provider could not be reached. Start connecting again.',
            dataSources,
          );
        }
        throw error;
      }
    },
  }),
};

/**
 * A small HTML page for the browser: the reasons are our own words,
 * never the provider's text. Every callback ends the browser's sign-in, so
 * its flow cookie is cleared.
 */
function page(
  statusCode: number,
  title: string,
  text: string,
  onward: PageLink,
): APIGatewayProxyResult {
  const result = errorPage(statusCode, title, text, onward);
  return {
    ...result,
    headers: { ...result.headers, 'Cache-Control': 'no-store' },
    multiValueHeaders: { 'Set-Cookie': [flowCookie('', 0)] },
  };
}

export const handler = httpFunction({
  family: 'connections',
  routes: CONNECTIONS_ROUTES,
  operations,
  dependencies,
});
